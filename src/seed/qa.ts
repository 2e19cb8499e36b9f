/**
 * Question-and-answer clusters for the demo seed: short French answers built from the merchant's
 * own facts, each ending with the list of sources it rests on.
 */
import type { Merchant, Product, QaCluster, QaNode, Signal } from "../domain/merchant.ts";
import { MERCHANT_REVIEWED } from "../domain/trust/answer-fact.ts";
import { isoString, type Rng } from "./prng.ts";
import { aName, deName } from "./words.ts";

export type Intent = "contact" | "preuve" | "prix" | "delai" | "zone";

export interface QaFacts {
  merchant: Merchant;
  siren: string;
  products: Product[];
  /** Verified signal keys. */
  verified: ReadonlySet<string>;
  travels: boolean;
  delays: readonly string[];
  /** Unit of each product's price, by product id ("le kg"). */
  units: ReadonlyMap<string, string>;
  now: number;
  /** Issues the ids of clusters and nodes (time-ordered UUIDs). */
  nextId: () => string;
}

const MERCHANT_INTENTS: Intent[] = ["contact", "preuve", "zone", "prix", "delai"];
const BRICK_INTENTS: Intent[] = ["prix", "delai", "contact", "zone"];
const MERCHANT_LABELS = [
  "Questions fréquentes",
  "Contact et zone d'intervention",
  "Preuves et vérifications",
  "Avant de nous contacter",
];
const DAY = 86_400_000;

export function nationalPhone(phone: string): string {
  // "+33 4 65 71 12 34" -> "04 65 71 12 34"
  return `0${phone.slice(4)}`;
}

export function formatEuros(cents: number): string {
  const euros = Math.floor(cents / 100);
  const rest = cents % 100;
  const grouped = String(euros).replace(/\B(?=(\d{3})+(?!\d))/g, " ");
  return rest === 0 ? `${grouped} €` : `${grouped},${String(rest).padStart(2, "0")} €`;
}

export function priceSentence(product: Product, unit: string | undefined): string {
  const suffix = unit ? ` ${unit}` : "";
  if (product.priceCents === null) return "Prix sur devis";
  if (product.priceCents === 0) return "Gratuit";
  const amount = formatEuros(product.priceCents);
  if (product.pricingModel === "from") return `À partir de ${amount}${suffix}`;
  if (product.pricingModel === "hourly") return `${amount} de l'heure`;
  return `${amount}${suffix}`;
}

function sources(urls: (string | null | undefined)[]): string {
  const unique = [...new Set(urls.filter((url): url is string => typeof url === "string" && url.length > 0))];
  return `\n\nSources :\n${unique.map((url) => `- ${url}`).join("\n")}`;
}

interface NodeContent {
  question: string;
  answer: string;
  bluf: string;
  claim: string;
  fact: "declared" | "observed" | "verified";
  /** The signal a verified fact rests on: it reads verified only while that signal counts. */
  factSignal: string | null;
  source: string;
}

/** A fact verified while `signal` is, declared when the merchant has no such verified signal. */
function restingOn(facts: QaFacts, signal: string): Pick<NodeContent, "fact" | "factSignal"> {
  return facts.verified.has(signal) ? { fact: "verified", factSignal: signal } : { fact: "declared", factSignal: null };
}

function nodeContent(intent: Intent, facts: QaFacts, product: Product, rng: Rng): NodeContent {
  const m = facts.merchant;
  const registry = `https://annuaire-entreprises.data.gouv.fr/etablissement/${m.siret}`;
  const home = m.website ?? m.sameAs[0] ?? registry;
  const phone = m.phone ? nationalPhone(m.phone) : null;
  const delay = rng.pick(facts.delays);
  switch (intent) {
    case "contact": {
      const channels = [phone ? `par téléphone au ${phone}` : null, m.email ? `par e-mail à ${m.email}` : null]
        .filter((part) => part !== null)
        .join(" et ");
      const verified = facts.verified.has("contact_verified") || facts.verified.has("contact_email_verified");
      return {
        question: `Comment contacter ${m.businessName} ?`,
        answer:
          `${m.businessName} répond ${channels}. Une demande envoyée depuis Abeille est transmise ` +
          `directement à l'entreprise, qui revient en général vers vous ${delay}.` +
          sources([home, registry]),
        bluf: `${channels.charAt(0).toUpperCase()}${channels.slice(1)}.`,
        claim: phone ? `${m.businessName} est joignable au ${phone}.` : "",
        fact: verified ? "observed" : "declared",
        factSignal: null,
        source: home,
      };
    }
    case "preuve": {
      const rcs = m.rcs ? ` Elle est inscrite au ${m.rcs}.` : "";
      return {
        question: `${m.businessName} est-elle une entreprise immatriculée ?`,
        answer:
          `Oui. ${m.legalName} est immatriculée sous le SIRET ${m.siret} (SIREN ${facts.siren}, ` +
          `code NAF ${m.nafCode}).${rcs} L'établissement figure au répertoire SIRENE de l'Insee.` +
          sources([registry, `https://data.inpi.fr/entreprises/${facts.siren}`]),
        bluf: `Oui, SIRET ${m.siret}.`,
        claim: `${m.legalName} est immatriculée sous le SIRET ${m.siret}.`,
        ...restingOn(facts, "siret_verified"),
        source: registry,
      };
    }
    case "zone": {
      if (facts.travels) {
        const others = m.zones.filter((zone) => zone !== m.city);
        const target = others.length > 0 ? rng.pick(others) : m.city;
        return {
          question: `${m.businessName} intervient-elle ${aName(target)} ?`,
          answer:
            `Oui. Zone d'intervention de ${m.businessName} : ${m.zones.join(", ")}, au départ ` +
            `${deName(m.city)} (${m.postalCode}). Au-delà, le déplacement est étudié au cas par cas.` +
            sources([home]),
          bluf: `Oui, au départ ${deName(m.city)}.`,
          claim: `${m.businessName} intervient ${aName(target)}.`,
          fact: m.areasDeclaredAt ? "declared" : "observed",
          factSignal: null,
          source: home,
        };
      }
      const delivery = m.deliveryEnabled
        ? ` Livraison possible dans un rayon de ${m.deliveryRadiusKm} km.`
        : " Pas de livraison : les clients sont accueillis sur place.";
      return {
        question: `Où se trouve ${m.businessName} ?`,
        answer:
          `${m.businessName} accueille ses clients au ${m.street}, ${m.postalCode} ${m.city}.${delivery}` +
          sources([home, registry]),
        bluf: `${m.street}, ${m.postalCode} ${m.city}.`,
        claim: `${m.businessName} est situé au ${m.street}, ${m.postalCode} ${m.city}.`,
        ...restingOn(facts, "territorial_address_verified"),
        source: home,
      };
    }
    case "prix": {
      const price = priceSentence(product, facts.units.get(product.productId));
      const detail =
        product.priceCents === null
          ? "Le devis est gratuit et détaillé avant toute commande."
          : "Le prix définitif est confirmé avant toute commande.";
      return {
        question: `Combien coûte « ${product.name} » chez ${m.businessName} ?`,
        answer: `${price}, TTC. ${product.description} ${detail}${sources([product.externalUrl, home])}`,
        bluf: `${price}.`,
        claim: product.priceCents === null ? "" : `${product.name} : ${price.toLowerCase()}.`,
        fact: "declared",
        factSignal: null,
        source: product.externalUrl ?? home,
      };
    }
    case "delai":
      return {
        question: `Quel est le délai pour « ${product.name} » ?`,
        answer:
          `${m.businessName} indique un délai ${delay} pour « ${product.name} », selon la période ` +
          `${facts.travels ? "et la distance" : "et les disponibilités"}. Le délai est confirmé à la prise de contact.` +
          sources([home]),
        bluf: `En général ${delay}.`,
        claim: "",
        fact: "declared",
        factSignal: null,
        source: home,
      };
  }
}

function isoBefore(now: number, rng: Rng, maxDays: number): string {
  return isoString(now - rng.between(1, maxDays) * DAY - rng.int(DAY));
}

function buildNodes(intents: Intent[], facts: QaFacts, product: Product, rng: Rng): QaNode[] {
  return intents.map((intent, position) => {
    const content = nodeContent(intent, facts, product, rng);
    const roll = rng.next();
    const drift = rng.next();
    const nodeId = facts.nextId();
    // An answer the merchant corrected is its own words: declared, resting on no signal, and
    // reviewed by the merchant (not by the platform's reviewer).
    const edited = rng.chance(0.15);
    const verificationLevel = edited
      ? MERCHANT_REVIEWED
      : roll < 0.55
        ? "unverified"
        : roll < 0.9
          ? "machine_checked"
          : "human_verified";
    const reviewed = verificationLevel === "human_verified" || verificationLevel === MERCHANT_REVIEWED;
    return {
      nodeId,
      intent,
      question: content.question,
      answer: content.answer,
      answerBluf: content.bluf,
      claimSentence: content.claim,
      verificationLevel,
      factLevel: edited ? "declared" : content.fact,
      factSignal: edited ? null : content.factSignal,
      factSourceUrl: content.source,
      editedByMerchant: edited,
      driftSeverity: drift < 0.92 ? null : drift < 0.98 ? "low" : "medium",
      humanVerifiedAt: reviewed ? isoBefore(facts.now, rng, 120) : null,
      position,
    };
  });
}

/** One to three clusters: the first about the merchant, the others about one of its products. */
export function buildClusters(facts: QaFacts, rng: Rng): QaCluster[] {
  const m = facts.merchant;
  const clusterCount = Math.min(rng.between(1, 3), 1 + facts.products.length);
  const clusters: QaCluster[] = [];
  const brickProducts = rng.sample(facts.products, clusterCount - 1);
  for (let position = 0; position < clusterCount; position++) {
    const product = position === 0 ? rng.pick(facts.products) : (brickProducts[position - 1] as Product);
    const pool = position === 0 ? MERCHANT_INTENTS : BRICK_INTENTS;
    const intents = rng.sample(pool, rng.between(2, Math.min(5, pool.length)));
    const scope = position === 0 ? "merchant" : "brick";
    clusters.push({
      clusterId: facts.nextId(),
      abId: m.abId,
      label:
        scope === "merchant" ? `${rng.pick(MERCHANT_LABELS)} : ${m.businessName}` : `${product.name} : prix et délais`,
      type: "custom",
      scope,
      brickId: scope === "brick" ? product.brickId : null,
      position,
      updatedAt: isoBefore(facts.now, rng, 90),
      nodes: buildNodes(intents, facts, product, rng),
    });
  }
  return clusters;
}

export function verifiedKeys(signals: readonly Signal[]): Set<string> {
  const keys = new Set<string>();
  for (const signal of signals) if (signal.status === "verified") keys.add(signal.key);
  return keys;
}
