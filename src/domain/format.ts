import type { Merchant, Product } from "./merchant.ts";

export function formatAddress(merchant: Pick<Merchant, "street" | "postalCode" | "city">): string {
  return `${merchant.street}, ${merchant.postalCode} ${merchant.city}`;
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
