import { createKeyStore } from "../signing/key-store.ts";
import { type SnapshotIssuer, snapshotIssuer } from "./snapshot.ts";

/**
 * What the refresh job needs from the signing module: a snapshot manifest issuer and the public
 * key set. Signing uses node:crypto (same Ed25519 signatures as @noble/ed25519, several times
 * faster), which matters when a daily run re-signs every merchant's snapshot.
 */
export function publishSigning(config: { dataDir: string }): {
  snapshotIssuer: SnapshotIssuer | null;
  keySet: (() => unknown) | null;
} {
  const store = createKeyStore(config, { backend: "node" });
  return { snapshotIssuer: snapshotIssuer(store), keySet: () => store.jwks() };
}
