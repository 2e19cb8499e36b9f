import { siretKeysOf } from "./import-declarations.ts";
import {
  type ImportCheckpoints,
  type ImportLine,
  importJsonLines,
  type JsonLinesOptions,
} from "./import-json-lines.ts";
import type { Actor, MerchantLifecycleDeps } from "./merchant-registry.ts";
import { recordPlatformObservation } from "./record-platform-observation.ts";

/**
 * A bulk import of platform observations (src/schemas/platform-observation.ts), one JSON object a
 * line: each updates the merchant of its SIRET, a line naming no registered merchant or not
 * validating is reported with its number and errors while the import goes on. Resumable and
 * idempotent like the declarations import.
 */
export function importObservations(
  deps: MerchantLifecycleDeps & { checkpoints: ImportCheckpoints },
  lines: AsyncIterable<ImportLine>,
  options: JsonLinesOptions & { actor: Actor },
) {
  return importJsonLines(deps, lines, options, {
    keysOf: siretKeysOf,
    apply: (registry, observation) => {
      const recorded = recordPlatformObservation({ ...deps, registry }, observation, options.actor);
      return { outcome: recorded.changed.length === 0 ? "unchanged" : "updated", abId: recorded.abId };
    },
  });
}
