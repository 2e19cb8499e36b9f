import type { Product } from "../merchant.ts";

export type BrickResolution = { ok: true; product: Product } | { ok: false; message: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EXAMPLE_SHAPE = /^brk_(ab_[a-z0-9]{8})_(.+)$/;

/**
 * Finds the brick a lead names among the merchant's products. Accepted: the brick_id (uuid) of the
 * decision card's bricks_inventory, the product id (uuid) that resolve lists, and the spec's example
 * shape `brk_<ab_id>_<slug>` mapped to the product's slug. Anything else is an unknown brick.
 */
export function resolveBrick(products: readonly Product[], abId: string, brickId: string): BrickResolution {
  if (UUID.test(brickId)) {
    const id = brickId.toLowerCase();
    const product = products.find((item) => item.brickId === id || item.productId === id);
    if (product) return { ok: true, product };
    return { ok: false, message: `is not a brick of merchant ${abId}; use a brick_id from its bricks_inventory` };
  }
  const example = EXAMPLE_SHAPE.exec(brickId);
  if (example) {
    if (example[1] !== abId) {
      return { ok: false, message: `names a brick of ${example[1]}, not of merchant ${abId}` };
    }
    const product = products.find((item) => item.slug === example[2]);
    if (product) return { ok: true, product };
    return { ok: false, message: `names no brick of merchant ${abId}; use a brick_id from its bricks_inventory` };
  }
  return {
    ok: false,
    message: `is not a brick id: give a brick_id (uuid) from the merchant's bricks_inventory, or brk_${abId}_<slug>`,
  };
}
