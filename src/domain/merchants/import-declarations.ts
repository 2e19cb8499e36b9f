import { addMerchant } from "./add-merchant.ts";
import {
  type ImportCheckpoints,
  type ImportLine,
  importJsonLines,
  type JsonLinesOptions,
} from "./import-json-lines.ts";
import type { Actor, MerchantLifecycleDeps, RegistryBatchKeys } from "./merchant-registry.ts";
import { updateMerchant } from "./update-merchant.ts";

export type { ImportCheckpoints, ImportLine, ImportReport } from "./import-json-lines.ts";

/**
 * A bulk import of merchant declarations, one JSON object a line (NDJSON): a SIRET already
 * registered updates its merchant, a new one adds a merchant, and a line that does not validate
 * is reported with its number and errors while the import goes on. Each line is its own
 * transaction; the same file twice changes nothing the second time, and a run killed midway
 * resumes after the last line it recorded (`importKey` names the file's content).
 */
export function importDeclarations(
  deps: MerchantLifecycleDeps & { checkpoints: ImportCheckpoints },
  lines: AsyncIterable<ImportLine>,
  options: JsonLinesOptions & { actor: Actor },
) {
  return importJsonLines(deps, lines, options, {
    keysOf: siretKeysOf,
    apply: (registry, declaration) => {
      const decision = { ...deps, registry };
      const siret = (declaration as { siret?: unknown } | null)?.siret;
      const existing = typeof siret === "string" ? registry.abIdOfSiret(siret) : null;
      if (!existing) return { outcome: "created", abId: addMerchant(decision, declaration, options.actor).abId };
      const { siret: _siret, ...update } = declaration as Record<string, unknown>;
      const updated = updateMerchant(decision, existing, update, options.actor);
      return { outcome: updated.changed.length === 0 ? "unchanged" : "updated", abId: existing };
    },
  });
}

/** The merchant a line names by its `siret` (a line without one reads none). */
export function siretKeysOf(value: unknown): RegistryBatchKeys {
  const siret = (value as { siret?: unknown } | null)?.siret;
  return typeof siret === "string" ? { sirets: [siret] } : {};
}
