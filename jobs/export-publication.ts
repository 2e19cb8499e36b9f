/**
 * `npm run export-publication -- DIR`: writes the publication (what `npm run refresh` published
 * into the packs of DATA_DIR/publish, or PUBLISH_DIR) out as a plain tree of files at their public
 * URL paths, with the key set and the static server configuration, for a static server or a CDN
 * upload (docs/deployment.md). DIR must be new, empty, or an earlier export (replaced whole).
 *
 *   npm run export-publication -- DIR [--json]
 *
 * Exit status:
 *   0  done: the counts on stdout
 *   1  refused or failed: nothing is published yet, DIR holds other files, or a pack or DIR could not be read or written (one line; DIR is left as it was)
 *   2  usage: a wrong option, argument or setting, said in one line (nothing was done)
 */
import { loadConfig } from "../src/config/config.ts";
import { ExportRefused, exportPublication } from "../src/publish/export-publication.ts";
import { loadPublishSettings } from "../src/publish/settings.ts";
import { CommandError, EXIT_DONE, EXIT_FAILED, runCommand, USAGE_STATUS, UsageError } from "./cli.ts";

await runCommand(
  {
    name: "export-publication",
    usage: ["npm run export-publication -- DIR [--json]"],
    notes: ["--json prints the counts as JSON. DIR must be new, empty, or an earlier export (replaced whole)."],
    options: { json: { type: "boolean", default: false } },
    allowPositionals: true,
    exitStatuses: [
      [EXIT_DONE, "done: the counts on stdout"],
      [
        EXIT_FAILED,
        "refused or failed: nothing is published yet, DIR holds other files, or a pack or DIR could not be read or written (one line; DIR is left as it was)",
      ],
      USAGE_STATUS,
    ],
  },
  async ({ values, positionals }) => {
    if (positionals.length !== 1) throw new UsageError("give one folder to export into");
    const target = positionals[0] as string;
    const settings = loadPublishSettings(loadConfig());
    const started = performance.now();
    let summary: ReturnType<typeof exportPublication>;
    try {
      summary = exportPublication(settings.publishDir, target);
    } catch (error) {
      if (error instanceof ExportRefused || (error as NodeJS.ErrnoException).code !== undefined) {
        throw new CommandError((error as Error).message, EXIT_FAILED);
      }
      throw error;
    }
    const seconds = Math.round((performance.now() - started) / 10) / 100;
    if (values.json) process.stdout.write(`${JSON.stringify({ ...summary, seconds })}\n`);
    else {
      process.stdout.write(
        `Exported ${settings.publishDir} (generation ${summary.generation}) into ${target}\n` +
          `  documents  ${summary.documents}\n  files      ${summary.files} (key set, static server configuration)\n` +
          `  bytes      ${summary.bytes}\n  seconds    ${seconds}\n`,
      );
    }
  },
);
