import type { App } from "../app.ts";
import { createKeyStore, type KeyStore } from "./key-store.ts";

/**
 * The key store a route uses. When the composition root carries one (`app.keys`), that one;
 * otherwise one per data directory for the life of the process, on the app's clock.
 */
const byDataDir = new Map<string, KeyStore>();

export function keyStoreFor(app: App): KeyStore {
  const wired: unknown = (app as { keys?: unknown }).keys;
  if (isKeyStore(wired)) return wired;
  let store = byDataDir.get(app.config.dataDir);
  if (!store) {
    store = createKeyStore(app.config, { now: app.now });
    byDataDir.set(app.config.dataDir, store);
  }
  return store;
}

function isKeyStore(value: unknown): value is KeyStore {
  return (
    typeof value === "object" &&
    value !== null &&
    "signJws" in value &&
    typeof value.signJws === "function" &&
    "jwks" in value &&
    typeof value.jwks === "function"
  );
}
