import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { jobArgv } from "../../jobs/compile-cache.ts";

const scripts = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    scripts: Record<string, string>;
  }
).scripts;

describe("the npm scripts that run jobs", () => {
  it("start each job as jobArgv does, so benches and the scheduler run them the same way", () => {
    const jobScripts = Object.entries(scripts).filter(
      ([name, command]) => name !== "db:generate" && / jobs\/[a-z-]+\.ts/.test(command),
    );
    expect(jobScripts.map(([name]) => name)).toEqual([
      "start",
      "seed",
      "keys",
      "verify-manifest",
      "refresh",
      "export-publication",
      "agents",
      "merchants",
      "import",
      "verify",
      "kill-switch",
      "outbox",
      "retention",
      "meili",
      "search",
      "db",
      "server-json",
    ]);
    for (const [name, command] of jobScripts) {
      // Options the script passes after the job (npm start's --build) are the job's, not the runtime's.
      const invocation = command.replace(/^.*&& /, "").replace(/( --[a-z-]+)+$/, "");
      const script = [...invocation.matchAll(/jobs\/[a-z-]+\.ts/g)].at(-1)?.[0] as string;
      const expected = ["node", ...jobArgv(script)]
        .join(" ")
        .replace(/\S+\/jobs\/compile-cache\.ts/, "./jobs/compile-cache.ts");
      expect(invocation, name).toBe(expected);
    }
  });
});
