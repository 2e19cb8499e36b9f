/**
 * The server's daily imports (jobs/daily-imports.ts): nothing scheduled without SIRENE_API_KEY;
 * with it, a run is `import -- sirene-daily` then `import -- bodacc-daily`, each a process of its
 * own, against local stand-ins of API Sirene and of BODACC's export (recorded answers): the day's
 * establishment comes in, then the day's announcement about its company is applied to it.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDailyImports } from "../../jobs/daily-imports.ts";
import { loadConfig } from "../../src/config/config.ts";
import { dateIn, dayAfter } from "../../src/domain/calendar.ts";
import { establishmentRecord, type FakeApiSirene, startFakeApiSirene } from "../helpers/fake-api-sirene.ts";

const KEY = "integration-key-of-the-tests";
const yesterday = dayAfter(dateIn("Europe/Paris", new Date()), -1);
let sirene: FakeApiSirene;
let bodacc: Server;
let bodaccUrl: string;
const bodaccAsked: string[] = [];
let work: string;

/** DANONE's modification, published in the BODACC (test/fixtures/official/bodacc-v2.0-records-page.json), as if yesterday. */
const announcement = (() => {
  const page = JSON.parse(
    readFileSync(path.resolve(import.meta.dirname, "../fixtures/official/bodacc-v2.0-records-page.json"), "utf8"),
  ) as { records: { record: { fields: Record<string, unknown> } }[] };
  return { ...page.records[0]?.record.fields, dateparution: yesterday };
})();

beforeAll(async () => {
  sirene = await startFakeApiSirene({ key: KEY });
  // BODACC's JSON Lines export of a day: `GET .../exports/jsonl?where=dateparution = date'AAAA-MM-JJ'`.
  bodacc = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://fake");
    const where = url.searchParams.get("where") ?? "";
    bodaccAsked.push(`${url.pathname} ${where}`);
    response.writeHead(200, { "content-type": "application/jsonl" });
    response.end(where === `dateparution = date'${yesterday}'` ? `${JSON.stringify(announcement)}\n` : "");
  });
  await new Promise<void>((resolve) => bodacc.listen(0, "127.0.0.1", resolve));
  bodaccUrl = `http://127.0.0.1:${(bodacc.address() as AddressInfo).port}/api/explore/v2.1/catalog/datasets/annonces-commerciales`;
  work = mkdtempSync(path.join(os.tmpdir(), "abeille-daily-imports-"));
});
afterAll(async () => {
  await sirene.close();
  bodacc.closeAllConnections();
  await new Promise((resolve) => bodacc.close(resolve));
  rmSync(work, { recursive: true, force: true });
});

describe("the server's daily imports", () => {
  it("are off without SIRENE_API_KEY", async () => {
    const daily = startDailyImports(loadConfig({ DATA_DIR: work }));
    expect([daily.runNow, daily.nextRun()]).toEqual([null, null]);
    await daily.stop();
  });

  it("run SIRENE's changes of each day, then BODACC's announcements, each as its own process", async () => {
    // DANONE's establishment, a bakery of the company the announcement names.
    sirene.publish(yesterday, {
      establishments: [
        establishmentRecord({
          siret: "55203253400646",
          processedAt: `${yesterday}T09:00:00`,
          sign: "BOULANGERIE DU BOULEVARD",
          naf: "10.71C",
          street: { number: "17", type: "BD", name: "HAUSSMANN" },
          postalCode: "75009",
          city: "PARIS 9",
          communeCode: "75109",
          company: { name: "DANONE", createdOn: "1955-01-01", legalForm: "5599" },
        }),
      ],
    });
    const env = {
      ...process.env,
      DATA_DIR: path.join(work, "data"),
      BASE_URL: "http://localhost:4321",
      LOG_LEVEL: "warn",
      SIRENE_API_URL: sirene.url,
      SIRENE_API_KEY: KEY,
      BODACC_API_URL: bodaccUrl,
    };
    const daily = startDailyImports(loadConfig(env), { env });
    expect(daily.nextRun()).toBeInstanceOf(Date);
    const run = await daily.runNow?.();
    await daily.stop();
    expect(run?.sirene).toMatchObject({ code: 0, report: { from: yesterday, created: 1, through: yesterday } });
    expect(run?.bodacc).toMatchObject({
      code: 0,
      report: {
        from: yesterday,
        through: yesterday,
        days: [
          expect.objectContaining({ day: yesterday, read: 1, matched: 1, updated: 1 }),
          // Today: nothing yet, and not done.
          expect.objectContaining({ day: dayAfter(yesterday), read: 0 }),
        ],
      },
    });
    expect(bodaccAsked[0]).toBe(
      `/api/explore/v2.1/catalog/datasets/annonces-commerciales/exports/jsonl dateparution = date'${yesterday}'`,
    );
  }, 60_000);
});
