import type { Merchant, Product } from "./merchant.ts";

/** "12 rue de la Paix, 75002 Paris"; a part the record leaves empty is left out, not printed empty. */
export function formatAddress(merchant: Pick<Merchant, "street" | "postalCode" | "city">): string {
  const town = [merchant.postalCode, merchant.city].filter(Boolean).join(" ");
  return [merchant.street, town].filter(Boolean).join(", ");
}

/** A price an agent can quote as it stands: "120.00 EUR", "from 45.00 EUR", "60.00 EUR/hour" or "on quote". */
export function formatPrice(product: Pick<Product, "priceCents" | "currency" | "pricingModel">): string {
  if (product.priceCents === null || product.pricingModel === "on_quote") return "on quote";
  const amount = `${(product.priceCents / 100).toFixed(2)} ${product.currency}`;
  if (product.pricingModel === "from") return `from ${amount}`;
  if (product.pricingModel === "hourly") return `${amount}/hour`;
  return amount;
}

/** Lowercase ASCII slug: accents dropped, anything else but letters and digits becomes one dash. */
export function slugify(text: string): string {
  return text
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/œ/g, "oe")
    .replace(/æ/g, "ae")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

/**
 * Whether two texts are the same words written otherwise: case, accents and punctuation aside
 * ("12 RUE DE LA REPUBLIQUE" and "12 rue de la République"). The better-written one is kept.
 */
export function sameWritten(a: string, b: string): boolean {
  return slugify(a) === slugify(b);
}

/**
 * Of an address part as recorded and as a source now writes it, the one to keep: the source's,
 * unless both are the same words and the recorded one carries accents the source left out (INSEE
 * writes "REPUBLIQUE", a merchant "République"). Letters are never added to a source's text.
 */
export function betterWritten(recorded: string, incoming: string): string {
  if (!sameWritten(recorded, incoming)) return incoming;
  const accents = (text: string) => (text.normalize("NFD").match(/\p{M}/gu) ?? []).length;
  return accents(recorded) > accents(incoming) ? recorded : incoming;
}
