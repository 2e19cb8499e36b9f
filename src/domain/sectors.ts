/**
 * Trades the registry knows, grouped into sector families. A family decides the lead contract's
 * sector fields and which sector-specific signals apply; a trade decides the NAF code, the
 * Schema.org type and the words a searcher may type.
 */
export type LeadFieldType = "string" | "number" | "date" | "enum" | "boolean" | "email" | "tel" | "text";

export interface LeadField {
  name: string;
  type: LeadFieldType;
  required: boolean;
  label: string;
  options?: string[];
  /** Upper bound for strings (characters) or numbers (value). */
  max?: number;
}

export type SectorKey =
  | "batiment"
  | "alimentation"
  | "restauration"
  | "beaute"
  | "automobile"
  | "tourisme"
  | "commerce"
  | "immobilier"
  | "assurance"
  | "sante_animale"
  | "services";

export interface Sector {
  key: SectorKey;
  label: string;
  leadFields: LeadField[];
}

export interface Trade {
  key: string;
  nafCode: string;
  /** The trade as people name it, in French (singular). */
  label: string;
  sector: SectorKey;
  schemaOrgType: string;
  /**
   * The JSON-LD's types when the trade's own type is not a LocalBusiness (a vet's office is a
   * MedicalOrganization): with LocalBusiness beside it, the address, hours and prices are
   * properties of the node's types.
   */
  schemaOrgTypes?: readonly string[];
  /** Extra words a searcher may use for this trade (French, singular). */
  keywords: string[];
}

const dateField = (name: string, label: string): LeadField => ({ name, type: "date", required: false, label });
const textField = (name: string, label: string, max = 200): LeadField => ({
  name,
  type: "string",
  required: false,
  label,
  max,
});
const numberField = (name: string, label: string, max: number): LeadField => ({
  name,
  type: "number",
  required: false,
  label,
  max,
});
const enumField = (name: string, label: string, options: string[]): LeadField => ({
  name,
  type: "enum",
  required: false,
  label,
  options,
});

export const sectors: Record<SectorKey, Sector> = {
  tourisme: {
    key: "tourisme",
    label: "Tourisme et événementiel",
    leadFields: [
      enumField("event_type", "Type d'événement", [
        "seminaire",
        "team_building",
        "incentive",
        "sejour_groupe",
        "visite_guidee",
        "hebergement",
      ]),
      numberField("nb_participants", "Nombre de participants", 10000),
      dateField("date_souhaitee", "Date souhaitée"),
      textField("budget_range", "Budget"),
      textField("destination", "Destination"),
    ],
  },
  batiment: {
    key: "batiment",
    label: "Bâtiment et travaux",
    leadFields: [
      enumField("type_travaux", "Type de travaux", [
        "installation",
        "renovation",
        "depannage",
        "entretien",
        "diagnostic",
      ]),
      numberField("surface_m2", "Surface (m²)", 100000),
      textField("adresse_chantier", "Adresse du chantier"),
      dateField("date_souhaitee", "Date souhaitée"),
      textField("budget_range", "Budget"),
    ],
  },
  alimentation: {
    key: "alimentation",
    label: "Alimentation",
    leadFields: [
      enumField("type_commande", "Type de commande", ["retrait_boutique", "livraison", "evenement"]),
      numberField("nb_personnes", "Nombre de personnes", 10000),
      dateField("date_souhaitee", "Date souhaitée"),
      textField("allergies", "Allergies ou régimes"),
    ],
  },
  restauration: {
    key: "restauration",
    label: "Restauration",
    leadFields: [
      numberField("nb_couverts", "Nombre de couverts", 1000),
      dateField("date_souhaitee", "Date souhaitée"),
      textField("heure", "Heure", 20),
      enumField("occasion", "Occasion", ["repas", "anniversaire", "affaires", "groupe"]),
      textField("regime_alimentaire", "Régime alimentaire"),
    ],
  },
  beaute: {
    key: "beaute",
    label: "Beauté et bien-être",
    leadFields: [
      textField("prestation", "Prestation"),
      dateField("date_souhaitee", "Date souhaitée"),
      enumField("creneau", "Créneau", ["matin", "apres_midi", "soir"]),
      { name: "premiere_visite", type: "boolean", required: false, label: "Première visite" },
    ],
  },
  automobile: {
    key: "automobile",
    label: "Automobile",
    leadFields: [
      textField("marque_modele", "Marque et modèle"),
      textField("immatriculation", "Immatriculation", 20),
      numberField("kilometrage", "Kilométrage", 2000000),
      enumField("type_intervention", "Type d'intervention", [
        "entretien",
        "reparation",
        "controle",
        "pneus",
        "carrosserie",
      ]),
    ],
  },
  commerce: {
    key: "commerce",
    label: "Commerce de proximité",
    leadFields: [
      textField("produit_recherche", "Produit recherché"),
      numberField("quantite", "Quantité", 10000),
      dateField("date_souhaitee", "Date souhaitée"),
      enumField("retrait_ou_livraison", "Retrait ou livraison", ["retrait", "livraison"]),
    ],
  },
  immobilier: {
    key: "immobilier",
    label: "Immobilier",
    leadFields: [
      enumField("projet", "Projet", ["achat", "vente", "location", "gestion", "estimation"]),
      enumField("type_bien", "Type de bien", ["appartement", "maison", "terrain", "local"]),
      numberField("surface_m2", "Surface (m²)", 100000),
      textField("budget_range", "Budget"),
      textField("localisation", "Localisation"),
    ],
  },
  assurance: {
    key: "assurance",
    label: "Assurance",
    leadFields: [
      enumField("type_contrat", "Type de contrat", ["habitation", "auto", "sante", "prevoyance", "professionnelle"]),
      textField("situation", "Situation"),
      dateField("date_effet", "Date d'effet souhaitée"),
    ],
  },
  sante_animale: {
    key: "sante_animale",
    label: "Santé animale",
    leadFields: [
      enumField("espece", "Espèce", ["chien", "chat", "nac", "equide", "autre"]),
      textField("motif", "Motif de consultation"),
      { name: "urgence", type: "boolean", required: false, label: "Urgence" },
    ],
  },
  services: {
    key: "services",
    label: "Services aux particuliers",
    leadFields: [
      textField("prestation", "Prestation"),
      dateField("date_souhaitee", "Date souhaitée"),
      textField("budget_range", "Budget"),
    ],
  },
};

export const trades: Trade[] = [
  {
    key: "plombier",
    nafCode: "43.22A",
    label: "Plombier",
    sector: "batiment",
    schemaOrgType: "Plumber",
    keywords: ["plomberie", "chauffagiste", "chauffage", "sanitaire", "fuite"],
  },
  {
    key: "electricien",
    nafCode: "43.21A",
    label: "Électricien",
    sector: "batiment",
    schemaOrgType: "Electrician",
    keywords: ["électricité", "dépannage électrique", "tableau électrique"],
  },
  {
    key: "menuisier",
    nafCode: "43.32A",
    label: "Menuisier",
    sector: "batiment",
    schemaOrgType: "GeneralContractor",
    keywords: ["menuiserie", "fenêtre", "porte", "parquet"],
  },
  {
    key: "peintre",
    nafCode: "43.34Z",
    label: "Peintre en bâtiment",
    sector: "batiment",
    schemaOrgType: "HousePainter",
    keywords: ["peinture", "vitrerie", "décoration"],
  },
  {
    key: "couvreur",
    nafCode: "43.91B",
    label: "Couvreur",
    sector: "batiment",
    schemaOrgType: "RoofingContractor",
    keywords: ["couverture", "toiture", "zinguerie", "charpente"],
  },
  {
    key: "paysagiste",
    nafCode: "81.30Z",
    label: "Paysagiste",
    sector: "batiment",
    schemaOrgType: "HomeAndConstructionBusiness",
    keywords: ["jardin", "jardinier", "espaces verts", "élagage"],
  },
  {
    key: "boulanger",
    nafCode: "10.71C",
    label: "Boulangerie-pâtisserie",
    sector: "alimentation",
    schemaOrgType: "Bakery",
    keywords: ["boulangerie", "pâtisserie", "pain", "viennoiserie"],
  },
  {
    key: "charcutier",
    nafCode: "10.13B",
    label: "Charcutier",
    sector: "alimentation",
    schemaOrgType: "FoodEstablishment",
    keywords: ["charcuterie", "traiteur"],
  },
  {
    key: "boucher",
    nafCode: "47.22Z",
    label: "Boucherie",
    sector: "alimentation",
    schemaOrgType: "Store",
    keywords: ["boucher", "viande", "volaille"],
  },
  {
    key: "traiteur",
    nafCode: "56.21Z",
    label: "Traiteur",
    sector: "alimentation",
    schemaOrgType: "FoodEstablishment",
    keywords: ["réception", "buffet", "cocktail"],
  },
  {
    key: "restaurant",
    nafCode: "56.10A",
    label: "Restaurant",
    sector: "restauration",
    schemaOrgType: "Restaurant",
    keywords: ["restauration", "bistrot", "brasserie", "cuisine"],
  },
  {
    key: "coiffeur",
    nafCode: "96.02A",
    label: "Salon de coiffure",
    sector: "beaute",
    schemaOrgType: "HairSalon",
    keywords: ["coiffure", "barbier", "coupe", "coloration"],
  },
  {
    key: "estheticienne",
    nafCode: "96.02B",
    label: "Institut de beauté",
    sector: "beaute",
    schemaOrgType: "BeautySalon",
    keywords: ["esthétique", "soins", "épilation", "manucure"],
  },
  {
    key: "spa",
    nafCode: "96.04Z",
    label: "Spa et bien-être",
    sector: "beaute",
    schemaOrgType: "DaySpa",
    keywords: ["massage", "bien-être", "hammam"],
  },
  {
    key: "garagiste",
    nafCode: "45.20A",
    label: "Garage automobile",
    sector: "automobile",
    schemaOrgType: "AutoRepair",
    keywords: ["garage", "mécanique", "vidange", "pneus", "carrosserie"],
  },
  {
    key: "agence_voyage",
    nafCode: "79.11Z",
    label: "Agence de voyages",
    sector: "tourisme",
    schemaOrgType: "TravelAgency",
    keywords: ["voyage", "séjour", "séminaire", "circuit"],
  },
  {
    key: "voyagiste",
    nafCode: "79.12Z",
    label: "Voyagiste",
    sector: "tourisme",
    schemaOrgType: "TravelAgency",
    keywords: ["tour-opérateur", "séjour", "incentive"],
  },
  {
    key: "guide",
    nafCode: "79.90Z",
    label: "Réservation et visites guidées",
    sector: "tourisme",
    schemaOrgType: "TouristInformationCenter",
    keywords: ["visite guidée", "guide", "excursion", "team building"],
  },
  {
    key: "hotel",
    nafCode: "55.10Z",
    label: "Hôtel",
    sector: "tourisme",
    schemaOrgType: "Hotel",
    keywords: ["hébergement", "chambre", "séminaire"],
  },
  {
    key: "fleuriste",
    nafCode: "47.76Z",
    label: "Fleuriste",
    sector: "commerce",
    schemaOrgType: "Florist",
    keywords: ["fleurs", "bouquet", "plantes", "composition florale"],
  },
  {
    key: "librairie",
    nafCode: "47.61Z",
    label: "Librairie",
    sector: "commerce",
    schemaOrgType: "BookStore",
    keywords: ["livres", "libraire", "bande dessinée"],
  },
  {
    key: "agence_immobiliere",
    nafCode: "68.31Z",
    label: "Agence immobilière",
    sector: "immobilier",
    schemaOrgType: "RealEstateAgent",
    keywords: ["immobilier", "location", "vente", "estimation"],
  },
  {
    key: "courtier_assurance",
    nafCode: "66.22Z",
    label: "Courtier en assurances",
    sector: "assurance",
    schemaOrgType: "InsuranceAgency",
    keywords: ["assurance", "courtier", "mutuelle", "prévoyance"],
  },
  {
    key: "veterinaire",
    nafCode: "75.00Z",
    label: "Clinique vétérinaire",
    sector: "sante_animale",
    schemaOrgType: "VeterinaryCare",
    schemaOrgTypes: ["VeterinaryCare", "LocalBusiness"],
    keywords: ["vétérinaire", "animaux", "chien", "chat"],
  },
  {
    key: "photographe",
    nafCode: "74.20Z",
    label: "Photographe",
    sector: "services",
    schemaOrgType: "ProfessionalService",
    keywords: ["photographie", "portrait", "mariage", "studio"],
  },
  {
    key: "cordonnier",
    nafCode: "95.23Z",
    label: "Cordonnerie",
    sector: "services",
    schemaOrgType: "ProfessionalService",
    keywords: ["cordonnier", "chaussures", "clés", "maroquinerie"],
  },
  {
    key: "salle_sport",
    nafCode: "93.13Z",
    label: "Salle de sport",
    sector: "services",
    schemaOrgType: "ExerciseGym",
    keywords: ["fitness", "musculation", "coach sportif"],
  },
];

const tradesByNaf = new Map(trades.map((trade) => [trade.nafCode, trade]));

export function tradeForNaf(nafCode: string): Trade | undefined {
  return tradesByNaf.get(nafCode);
}

export function sectorOf(key: string): Sector | undefined {
  return (sectors as Record<string, Sector | undefined>)[key];
}
