/**
 * The port `near=` reads a place through: a French commune named in words or by its postal code,
 * from the commune reference (data/communes.json; src/seed/communes.ts createPlaceFinder
 * implements it). The search is made around the commune's centre.
 */
export interface Place {
  name: string;
  department: string;
  /** The postal code the place was read by, else the commune's first. */
  postalCode: string;
  lat: number;
  lng: number;
}

export type PlaceLookup =
  | { place: Place }
  /**
   * Nothing named so: why, in technical English (with what to give instead when there is no close
   * name), and the closest names (each one a value `near` takes).
   */
  | { place: null; reason: string; suggestions: string[] };

export interface PlaceFinder {
  /** "Lyon", "saint-etienne", "Saint-Denis (93)", "69003", "69003 Lyon", "Paris 11e". */
  find(text: string): PlaceLookup;
}
