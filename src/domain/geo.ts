/** Mean earth radius (IUGG), the one every distance of the registry uses. */
export const EARTH_RADIUS_KM = 6371.0088;

export interface GeoPoint {
  lat: number;
  lng: number;
}

/** Great-circle distance (haversine) in kilometres: search, comparisons and the seed agree on it. */
export function haversineKm(a: GeoPoint, b: GeoPoint): number {
  const toRad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * toRad;
  const dLng = (b.lng - a.lng) * toRad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * toRad) * Math.cos(b.lat * toRad) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Kilometres in a degree of latitude (and of longitude at the equator). */
const KM_PER_DEGREE_LAT = 111.32;

export interface BoundingBox {
  minLat: number;
  maxLat: number;
  minLng: number;
  maxLng: number;
}

/**
 * A box that holds every point within radiusKm of the centre (slightly larger, never smaller).
 * Near the poles or across the antimeridian it widens to every longitude.
 */
export function boundingBox(center: GeoPoint, radiusKm: number): BoundingBox {
  const dLat = radiusKm / KM_PER_DEGREE_LAT + 1e-6;
  const minLat = Math.max(-90, center.lat - dLat);
  const maxLat = Math.min(90, center.lat + dLat);
  const cosLat = Math.min(Math.cos((minLat * Math.PI) / 180), Math.cos((maxLat * Math.PI) / 180));
  const dLng = cosLat > 1e-6 ? radiusKm / (KM_PER_DEGREE_LAT * cosLat) + 1e-6 : 360;
  if (dLng >= 180 || center.lng - dLng < -180 || center.lng + dLng > 180) {
    return { minLat, maxLat, minLng: -180, maxLng: 180 };
  }
  return { minLat, maxLat, minLng: center.lng - dLng, maxLng: center.lng + dLng };
}
