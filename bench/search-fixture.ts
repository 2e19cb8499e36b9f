/**
 * A synthetic registry for search measurements: merchants spread over French cities (weighted by
 * size, jittered around the centre), ~5 trade-fitting products each with tags, and a dozen trust
 * signals. Deterministic for a given seed. Used by bench/search-bench.ts when the demo seed
 * generator (src/seed/seed-demo.ts) is not available.
 */
import { trades } from "../src/domain/sectors.ts";
import { signalCatalog } from "../src/domain/trust/signal-catalog.ts";
import type { Db } from "../src/store/db.ts";

const CITIES: [name: string, postalCode: string, department: string, lat: number, lng: number, weight: number][] = [
  ["Paris", "75011", "75", 48.8566, 2.3522, 22],
  ["Marseille", "13001", "13", 43.2965, 5.3698, 9],
  ["Lyon", "69003", "69", 45.764, 4.8357, 8],
  ["Toulouse", "31000", "31", 43.6047, 1.4442, 5],
  ["Nice", "06000", "06", 43.7102, 7.262, 4],
  ["Nantes", "44000", "44", 47.2184, -1.5536, 4],
  ["Montpellier", "34000", "34", 43.6108, 3.8767, 3],
  ["Strasbourg", "67000", "67", 48.5734, 7.7521, 3],
  ["Bordeaux", "33000", "33", 44.8378, -0.5792, 3],
  ["Lille", "59000", "59", 50.6292, 3.0573, 3],
  ["Rennes", "35000", "35", 48.1173, -1.6778, 2],
  ["Reims", "51100", "51", 49.2583, 4.0317, 2],
  ["Saint-Étienne", "42000", "42", 45.4397, 4.3872, 2],
  ["Villeurbanne", "69100", "69", 45.7719, 4.8902, 2],
  ["Grenoble", "38000", "38", 45.1885, 5.7245, 2],
  ["Dijon", "21000", "21", 47.322, 5.0415, 2],
  ["Angers", "49000", "49", 47.4784, -0.5632, 2],
  ["Clermont-Ferrand", "63000", "63", 45.7772, 3.087, 2],
  ["Le Mans", "72000", "72", 48.0061, 0.1996, 1],
  ["Aix-en-Provence", "13100", "13", 43.5297, 5.4474, 1],
  ["Brest", "29200", "29", 48.3904, -4.4861, 1],
  ["Tours", "37000", "37", 47.3941, 0.6848, 1],
  ["Amiens", "80000", "80", 49.8941, 2.2958, 1],
  ["Limoges", "87000", "87", 45.8336, 1.2611, 1],
  ["Annecy", "74000", "74", 45.8992, 6.1294, 1],
  ["Perpignan", "66000", "66", 42.6887, 2.8948, 1],
  ["Metz", "57000", "57", 49.1193, 6.1757, 1],
  ["Besançon", "25000", "25", 47.2378, 6.0241, 1],
  ["Orléans", "45000", "45", 47.9029, 1.9093, 1],
  ["Rouen", "76000", "76", 49.4432, 1.0999, 1],
  ["Caen", "14000", "14", 49.1829, -0.3707, 1],
  ["Nancy", "54000", "54", 48.6921, 6.1844, 1],
  ["Ajaccio", "20000", "2A", 41.9192, 8.7386, 1],
];

const TAGS = [
  "bio",
  "fait maison",
  "sans gluten",
  "livraison",
  "devis gratuit",
  "urgence",
  "week-end",
  "artisan",
  "local",
  "végétarien",
  "sur rendez-vous",
  "éco-responsable",
  "garantie",
  "à emporter",
  "accessible PMR",
  "balayage",
  "fait-maison",
  "installation",
  "depannage",
];

const WORDS = (
  "qualité service artisanal tradition savoir-faire proximité conseil accueil équipe passion " +
  "produits frais saison région matériaux entretien installation réparation rénovation création " +
  "sur mesure rapide soigné professionnel expérience clients quartier centre-ville ouvert samedi " +
  "prix juste devis intervention garantie certifié formation atelier boutique maison familial"
).split(" ");

const FIRST = ["Atelier", "Maison", "Chez", "Les Ateliers de", "L'Artisan", "Au Bon", "Le Comptoir de", "Espace"];
const LAST = ["Martin", "Bernard", "Dubois", "Thomas", "Robert", "Richard", "Petit", "Durand", "Leroy", "Moreau"];

const STATUSES: [string, number][] = [
  ["ACTIVE", 80],
  ["PROBATION", 8],
  ["PAUSED", 4],
  ["SUSPENDED", 3],
  ["ARCHIVED", 5],
];

function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function generateSearchFixture(db: Db, count: number, seed = 42): void {
  const random = mulberry32(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const weighted = <T>(items: readonly T[], weightOf: (item: T) => number): T => {
    const total = items.reduce((sum, item) => sum + weightOf(item), 0);
    let draw = random() * total;
    for (const item of items) {
      draw -= weightOf(item);
      if (draw <= 0) return item;
    }
    return items[items.length - 1] as T;
  };
  const sqlite = db.$client;
  const insertMerchant = sqlite.prepare(
    `INSERT INTO merchants (ab_id, siret, legal_name, business_name, slug, naf_code, sector, status, street,
       postal_code, city, description, zones, languages, founded_on, terrain_photos, same_as, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '[]', '["fr"]', '2015-01-01', '[]', '[]', ?, ?)`,
  );
  const insertProof = sqlite.prepare(
    `INSERT INTO territorial_proofs (ab_id, latitude, longitude, postal_code, city_normalized, department_code, verified)
     VALUES (?, ?, ?, ?, ?, ?, 1)`,
  );
  const insertProduct = sqlite.prepare(
    `INSERT INTO products (product_id, brick_id, ab_id, slug, brick_type, name, description, pricing_model,
       inventory_status, tags, position, updated_at)
     VALUES (?, ?, ?, ?, 'product', ?, ?, 'fixed', 'in_stock', ?, ?, ?)`,
  );
  const insertSignal = sqlite.prepare(
    `INSERT INTO signals (ab_id, key, status, proof_status, source, value, recorded_at)
     VALUES (?, ?, 'verified', 'machine_consistent', 'platform_observed', ?, ?)`,
  );
  const stamp = "2026-01-01T00:00:00.000Z";
  const sentence = (length: number): string => Array.from({ length }, () => pick(WORDS)).join(" ");
  sqlite.transaction(() => {
    for (let index = 0; index < count; index += 1) {
      const abId = `ab_${index.toString(36).padStart(8, "0")}`;
      const trade = pick(trades);
      // Large cities get more merchants, like the real registry.
      const city = random() < 0.6 ? weighted(CITIES, (entry) => entry[5]) : pick(CITIES);
      const [cityName, postalCode, department, lat, lng] = city;
      const [status] = weighted(STATUSES, (entry) => entry[1]);
      const name = `${pick(FIRST)} ${pick(LAST)} ${trade.label}`;
      insertMerchant.run(
        abId,
        String(10_000_000_000_000 + index),
        `${pick(LAST)} SARL`,
        name,
        abId,
        trade.nafCode,
        trade.sector,
        status,
        `${1 + Math.floor(random() * 120)} rue ${pick(LAST)}`,
        postalCode,
        cityName,
        `${trade.label} à ${cityName}. ${sentence(18)}`,
        stamp,
        stamp,
      );
      const spread = random() < 0.8 ? 0.08 : 0.3;
      insertProof.run(
        abId,
        lat + (random() - 0.5) * spread,
        lng + (random() - 0.5) * spread * 1.4,
        postalCode,
        cityName.toLowerCase(),
        department,
      );
      const productCount = 3 + Math.floor(random() * 5);
      for (let position = 0; position < productCount; position += 1) {
        const keyword = pick(trade.keywords);
        const tags = [...new Set(Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(TAGS)))];
        insertProduct.run(
          `${abId}_p${position}`,
          `${abId}_b${position}`,
          abId,
          `p${position}`,
          `${keyword} ${pick(WORDS)}`,
          `${keyword} ${sentence(20)}`,
          JSON.stringify(tags),
          position,
          stamp,
        );
      }
      const signalCount = 6 + Math.floor(random() * 10);
      const keys = new Set(Array.from({ length: signalCount }, () => pick(signalCatalog).key));
      for (const key of keys) {
        const value = random() < 0.5 ? JSON.stringify(true) : JSON.stringify(Math.floor(random() * 12));
        insertSignal.run(abId, key, value, stamp);
      }
    }
  })();
}
