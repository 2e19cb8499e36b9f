import type { HoursException } from "../../src/domain/merchant.ts";
import type { Db } from "../../src/store/db.ts";
import { merchants, products, signals, territorialProofs } from "../../src/store/schema.ts";

/*
 * A small registry every SearchIndex implementation is checked against (contract.ts): a few
 * trades in Lyon, Villeurbanne, Paris, Marseille and Grenoble, every merchant status, a merchant
 * without coordinates, products with tags, and signals that make trust differ.
 */

export const LYON = { lat: 45.764, lng: 4.8357 } as const;

export interface FixtureProduct {
  id: string;
  name: string;
  description: string;
  tags: string[];
}

export interface FixtureMerchant {
  abId: string;
  /** Default 73282932000074 (shared by the merchants the identifier checks do not look up). */
  siret?: string;
  name: string;
  nafCode: string;
  /** Its NAF 2025 code (default none). */
  nafCode2025?: string;
  sector: string;
  status: "ACTIVE" | "PROBATION" | "PAUSED" | "SUSPENDED" | "ARCHIVED";
  city: string;
  postalCode: string;
  departmentCode: string;
  /** null: no territorial proof, so no coordinates. */
  point: { lat: number; lng: number } | null;
  description: string;
  products: FixtureProduct[];
  /** Verified signal keys (with value true, or the given number). */
  signals: Record<string, boolean | number>;
  /** The usual week, as declared (default none). */
  hours?: Record<string, string>;
  /** Dated exceptions to it (default none). */
  hoursExceptions?: HoursException[];
}

/** A bakery's week: closed on Monday, a lunch break on Tuesday, Sunday mornings. */
export const BAKERY_WEEK = {
  lundi: "fermé",
  mardi: "07:00-13:00,15:00-19:30",
  mercredi: "07:00-19:30",
  jeudi: "07:00-19:30",
  vendredi: "07:00-19:30",
  samedi: "07:00-19:30",
  dimanche: "07:00-12:30",
};
/** A shop's week: closed on Sunday and Monday. */
const SHOP_WEEK = {
  lundi: "fermé",
  mardi: "09:30-19:00",
  mercredi: "09:30-19:00",
  jeudi: "09:30-19:00",
  vendredi: "09:30-19:00",
  samedi: "09:30-19:00",
  dimanche: "fermé",
};

const strongSignals = {
  siret_verified: true,
  bodacc_clean: true,
  rne_verified: true,
  territorial_address_verified: true,
  company_age_years: 25,
  has_products: true,
  website_present: true,
};
const weakSignals = { siret_verified: true };

/** The ab_ids the contract refers to, by role. */
export const FIXTURE = {
  bakeryTrusted: "ab_bake0001",
  bakeryLessTrusted: "ab_bake0002",
  bakeryArchived: "ab_bake0003",
  bakeryNoPoint: "ab_bake0004",
  plumberLyon: "ab_plum0001",
  plumberParis: "ab_plum0002",
  plumberSuspended: "ab_plum0003",
  hairVilleurbanne: "ab_hair0001",
  hairAtelier: "ab_hair0002",
  hairMarseille: "ab_hair0003",
  floristPaused: "ab_flor0001",
  floristNear: "ab_flor0002",
  floristFar: "ab_flor0003",
  garageProbation: "ab_garg0001",
  stable: "ab_hors0001",
  /** A bookshop in Mâcon: "maçon" must not find it through its town. */
  bookshopMacon: "ab_book0001",
  /** Not in the store at first: the refresh checks add it. */
  newcomer: "ab_news0001",
} as const;

export const fixtureMerchants: FixtureMerchant[] = [
  {
    abId: FIXTURE.bakeryTrusted,
    name: "Boulangerie Dupont",
    nafCode: "10.71C",
    sector: "alimentation",
    status: "ACTIVE",
    city: "Lyon",
    postalCode: "69003",
    departmentCode: "69",
    point: { lat: 45.7605, lng: 4.8505 },
    description: "Pains au levain et viennoiseries, cuits sur place chaque matin.",
    products: [
      { id: "pr_bake0001_1", name: "Pain de campagne", description: "Levain naturel, farine locale.", tags: ["Bio"] },
      {
        id: "pr_bake0001_2",
        name: "Gâteau d'anniversaire",
        description: "Sur commande, décor au choix.",
        tags: ["sans gluten", "sur commande"],
      },
      { id: "pr_bake0001_3", name: "Croissant", description: "Pur beurre.", tags: ["fait maison"] },
    ],
    signals: strongSignals,
    hours: BAKERY_WEEK,
  },
  {
    abId: FIXTURE.bakeryLessTrusted,
    // Dupont's twin (same words, same place), less trusted: trust alone separates them.
    name: "Boulangerie Durand",
    nafCode: "10.71C",
    sector: "alimentation",
    status: "ACTIVE",
    city: "Lyon",
    postalCode: "69003",
    departmentCode: "69",
    point: { lat: 45.7605, lng: 4.8505 },
    description: "Pains au levain et viennoiseries, cuits sur place chaque matin.",
    products: [
      { id: "pr_bake0002_1", name: "Pain de campagne", description: "Levain naturel, farine locale.", tags: ["Bio"] },
      {
        id: "pr_bake0002_2",
        name: "Gâteau d'anniversaire",
        description: "Sur commande, décor au choix.",
        tags: ["sans gluten", "sur commande"],
      },
      { id: "pr_bake0002_3", name: "Croissant", description: "Pur beurre.", tags: ["fait maison"] },
    ],
    signals: weakSignals,
    // Its twin's week, and a closure between Christmas and the New Year.
    hours: BAKERY_WEEK,
    hoursExceptions: [{ from: "2026-12-24", to: "2026-12-31", hours: "fermé", note: "congés" }],
  },
  {
    abId: FIXTURE.bakeryArchived,
    name: "Boulangerie Fantôme",
    nafCode: "10.71C",
    sector: "alimentation",
    status: "ARCHIVED",
    city: "Lyon",
    postalCode: "69001",
    departmentCode: "69",
    point: { lat: 45.767, lng: 4.834 },
    description: "Fermée.",
    products: [{ id: "pr_bake0003_1", name: "Pain fantôme", description: "Plus vendu.", tags: ["bio"] }],
    signals: strongSignals,
  },
  {
    abId: FIXTURE.bakeryNoPoint,
    name: "Boulangerie des Alpes",
    nafCode: "10.71C",
    sector: "alimentation",
    status: "ACTIVE",
    city: "Grenoble",
    postalCode: "38000",
    departmentCode: "38",
    point: null,
    description: "Pain de montagne.",
    products: [{ id: "pr_bake0004_1", name: "Pain aux noix", description: "Noix du Dauphiné.", tags: ["bio"] }],
    signals: weakSignals,
  },
  {
    abId: FIXTURE.bookshopMacon,
    siret: "51234567800012",
    name: "Librairie Lamartine",
    nafCode: "47.61Z",
    sector: "commerce",
    status: "ACTIVE",
    city: "Mâcon",
    postalCode: "71000",
    departmentCode: "71",
    point: { lat: 46.3069, lng: 4.8287 },
    description: "Romans, poésie et livres d'histoire locale.",
    products: [{ id: "pr_book0001_1", name: "Recueil de poèmes", description: "Édition régionale.", tags: [] }],
    signals: weakSignals,
  },
  {
    abId: FIXTURE.plumberLyon,
    siret: "44306184100047",
    name: "Martin Dépannage",
    nafCode: "43.22A",
    nafCode2025: "43.22G",
    sector: "batiment",
    status: "ACTIVE",
    city: "Lyon",
    postalCode: "69002",
    departmentCode: "69",
    point: { lat: 45.75, lng: 4.827 },
    description: "Interventions rapides sur toute la métropole.",
    products: [
      {
        id: "pr_plum0001_1",
        name: "Recherche de fuite d'eau",
        description: "Détection sans casse.",
        tags: ["urgence", "devis gratuit"],
      },
      {
        id: "pr_plum0001_2",
        name: "Installation de chauffe-eau",
        description: "Pose et mise en service.",
        tags: ["devis gratuit"],
      },
    ],
    signals: strongSignals,
    // An office's week, and on call on Christmas morning.
    hours: { ...SHOP_WEEK, lundi: "08:00-18:00" },
    hoursExceptions: [{ from: "2026-12-25", to: "2026-12-25", hours: "08:00-12:00", note: "astreinte" }],
  },
  {
    abId: FIXTURE.plumberParis,
    name: "Plombiers Réunis",
    nafCode: "43.22A",
    sector: "batiment",
    status: "ACTIVE",
    city: "Paris",
    postalCode: "75011",
    departmentCode: "75",
    point: { lat: 48.859, lng: 2.379 },
    description: "Débouchage et dépannage.",
    products: [
      { id: "pr_plum0002_1", name: "Débouchage de canalisation", description: "Jour et nuit.", tags: ["urgence"] },
    ],
    signals: weakSignals,
  },
  {
    abId: FIXTURE.plumberSuspended,
    name: "Plomberie Suspendue",
    nafCode: "43.22A",
    sector: "batiment",
    status: "SUSPENDED",
    city: "Lyon",
    postalCode: "69008",
    departmentCode: "69",
    point: { lat: 45.735, lng: 4.869 },
    description: "Sous enquête.",
    products: [{ id: "pr_plum0003_1", name: "Plomberie générale", description: "Tous travaux.", tags: [] }],
    signals: strongSignals,
  },
  {
    abId: FIXTURE.hairVilleurbanne,
    name: "Salon Élégance",
    nafCode: "96.02A",
    sector: "beaute",
    status: "ACTIVE",
    city: "Villeurbanne",
    postalCode: "69100",
    departmentCode: "69",
    point: { lat: 45.7719, lng: 4.8902 },
    description: "Coiffure femme et homme.",
    products: [
      { id: "pr_hair0001_1", name: "Coupe femme", description: "Shampooing et brushing.", tags: ["sur rendez-vous"] },
      {
        id: "pr_hair0001_2",
        name: "Coloration végétale",
        description: "Pigments naturels.",
        tags: ["Bio", "Sur Rendez-Vous"],
      },
    ],
    signals: strongSignals,
  },
  {
    abId: FIXTURE.hairAtelier,
    name: "L'Atelier du Cheveu",
    nafCode: "96.02A",
    sector: "beaute",
    status: "ACTIVE",
    city: "Lyon",
    postalCode: "69007",
    departmentCode: "69",
    point: { lat: 45.745, lng: 4.842 },
    description: "Barbier et coiffeur.",
    products: [
      { id: "pr_hair0002_1", name: "Coupe homme", description: "Tondeuse et ciseaux.", tags: ["barbier"] },
      { id: "pr_hair0002_2", name: "Soin de la barbe", description: "Huiles bio.", tags: ["bio"] },
    ],
    signals: weakSignals,
  },
  {
    abId: FIXTURE.hairMarseille,
    name: "Coiffure du Vieux-Port",
    // SIRENE's rows from 2027 on: NAF 2025 only.
    nafCode: "96.21G",
    nafCode2025: "96.21G",
    sector: "beaute",
    status: "ACTIVE",
    city: "Marseille",
    postalCode: "13001",
    departmentCode: "13",
    point: { lat: 43.2965, lng: 5.3698 },
    description: "Salon de quartier.",
    products: [
      { id: "pr_hair0003_1", name: "Coupe enfant", description: "Pour les petits.", tags: ["bio", "sur rendez-vous"] },
    ],
    signals: strongSignals,
  },
  {
    abId: FIXTURE.floristPaused,
    name: "Fleurs de Saône",
    nafCode: "47.76Z",
    sector: "commerce",
    status: "PAUSED",
    city: "Lyon",
    postalCode: "69005",
    departmentCode: "69",
    point: { lat: 45.762, lng: 4.827 },
    description: "Bouquets de saison.",
    products: [{ id: "pr_flor0001_1", name: "Bouquet du marché", description: "Fleurs locales.", tags: ["local"] }],
    signals: weakSignals,
  },
  {
    abId: FIXTURE.floristNear,
    // Twins of equal trust, about 1 km and 6 km from LYON: distance alone separates them.
    name: "Fleuriste Gauche",
    nafCode: "47.76Z",
    sector: "commerce",
    status: "ACTIVE",
    city: "Lyon",
    postalCode: "69002",
    departmentCode: "69",
    point: { lat: 45.755, lng: 4.8357 },
    description: "Compositions florales.",
    products: [{ id: "pr_flor0002_1", name: "Bouquet rond", description: "Roses.", tags: [] }],
    signals: weakSignals,
    hours: SHOP_WEEK,
  },
  {
    abId: FIXTURE.floristFar,
    name: "Fleuriste Droite",
    nafCode: "47.76Z",
    sector: "commerce",
    status: "ACTIVE",
    city: "Lyon",
    postalCode: "69002",
    departmentCode: "69",
    point: { lat: 45.71, lng: 4.8357 },
    description: "Compositions florales.",
    products: [{ id: "pr_flor0003_1", name: "Bouquet rond", description: "Roses.", tags: [] }],
    signals: weakSignals,
  },
  {
    abId: FIXTURE.garageProbation,
    name: "Garage du Rhône",
    nafCode: "45.20A",
    sector: "automobile",
    status: "PROBATION",
    city: "Lyon",
    postalCode: "69009",
    departmentCode: "69",
    point: { lat: 45.774, lng: 4.805 },
    description: "Entretien toutes marques.",
    products: [{ id: "pr_garg0001_1", name: "Vidange", description: "Huile et filtre.", tags: ["devis gratuit"] }],
    signals: weakSignals,
  },
  {
    abId: FIXTURE.stable,
    // Another establishment of the Lyon plumber's company (same SIREN).
    siret: "44306184100013",
    name: "Écurie des Monts d'Or",
    nafCode: "93.13Z",
    sector: "services",
    status: "ACTIVE",
    city: "Lyon",
    postalCode: "69009",
    departmentCode: "69",
    point: { lat: 45.81, lng: 4.81 },
    description: "Pension et cours d'équitation.",
    products: [{ id: "pr_hors0001_1", name: "Pension pour cheval", description: "Box et pré.", tags: ["local"] }],
    signals: weakSignals,
  },
];

/** A merchant the refresh checks insert after the first build. */
export const newcomer: FixtureMerchant = {
  abId: FIXTURE.newcomer,
  name: "Chocolaterie Nouvelle",
  nafCode: "10.71C",
  sector: "alimentation",
  status: "ACTIVE",
  city: "Lyon",
  postalCode: "69004",
  departmentCode: "69",
  point: { lat: 45.774, lng: 4.829 },
  description: "Bonbons et tablettes.",
  products: [{ id: "pr_news0001_1", name: "Tablette pralinée", description: "Noisettes du Piémont.", tags: [] }],
  signals: weakSignals,
};

const STAMP = "2026-01-15T09:00:00.000Z";

/** Writes merchants with plain drizzle inserts (their products, signals and territorial proof). */
export function insertFixtureMerchants(db: Db, list: readonly FixtureMerchant[]): void {
  db.transaction((tx) => {
    for (const merchant of list) {
      tx.insert(merchants)
        .values({
          abId: merchant.abId,
          siret: merchant.siret ?? "73282932000074",
          legalName: `${merchant.name} SARL`,
          businessName: merchant.name,
          slug: merchant.abId,
          nafCode: merchant.nafCode,
          nafCode2025: merchant.nafCode2025 ?? null,
          sector: merchant.sector,
          status: merchant.status,
          hours: merchant.hours ?? null,
          hoursExceptions: merchant.hoursExceptions ?? null,
          street: "1 rue de la République",
          postalCode: merchant.postalCode,
          city: merchant.city,
          description: merchant.description,
          zones: [merchant.city],
          languages: ["fr"],
          foundedOn: "2001-03-01",
          terrainPhotos: [],
          sameAs: [],
          createdAt: STAMP,
          updatedAt: STAMP,
        })
        .run();
      if (merchant.point) {
        tx.insert(territorialProofs)
          .values({
            abId: merchant.abId,
            latitude: merchant.point.lat,
            longitude: merchant.point.lng,
            postalCode: merchant.postalCode,
            cityNormalized: merchant.city.toLowerCase(),
            departmentCode: merchant.departmentCode,
            verified: true,
            verifiedAt: STAMP,
          })
          .run();
      }
      merchant.products.forEach((product, position) => {
        tx.insert(products)
          .values({
            productId: product.id,
            brickId: `br_${product.id.slice(3)}`,
            abId: merchant.abId,
            slug: `produit-${position}`,
            brickType: "product",
            name: product.name,
            description: product.description,
            pricingModel: "fixed",
            inventoryStatus: "in_stock",
            tags: product.tags,
            position,
            updatedAt: STAMP,
          })
          .run();
      });
      for (const [key, value] of Object.entries(merchant.signals)) {
        tx.insert(signals)
          .values({
            abId: merchant.abId,
            key,
            status: "verified",
            proofStatus: "official_source_verified",
            source: "official_api",
            value,
            verifiedAt: STAMP,
            recordedAt: STAMP,
          })
          .run();
      }
    }
  });
}
