/**
 * An operator takes a merchant through its lifecycle with `npm run merchants` (jobs/merchants.ts,
 * run as its own process on the DATA_DIR the built server is serving), and every step shows in
 * search, resolve, the change feed and the audit log.
 */
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeSiren, makeSiret } from "../../src/domain/siret.ts";
import { openDatabase } from "../../src/store/db.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ count: 60 });
}, 120_000);

afterAll(async () => {
  await server?.close();
});

async function merchants(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ["jobs/merchants.ts", ...args, "--actor", "operator:camille"],
      {
        cwd: root,
        env: { ...process.env, DATA_DIR: server.dataDir, LOG_LEVEL: "warn" },
      },
    );
    return { code: 0, stdout, stderr };
  } catch (failure) {
    const { code, stdout, stderr } = failure as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

function declarationFile(name: string, content: unknown): string {
  const file = path.join(server.dataDir, name);
  writeFileSync(file, JSON.stringify(content));
  return file;
}

async function changesOf(abId: string) {
  const { body } = await server.getJson("/api/registry/changes?limit=1000");
  return (body.changes as { ab_id: string; revision: number; change: string }[])
    .filter((change) => change.ab_id === abId)
    .map(({ revision, change }) => [revision, change]);
}

async function searchIds(q: string): Promise<string[]> {
  const { body } = await server.getJson(`/api/registry/search?q=${encodeURIComponent(q)}`);
  return (body.results as { merchant: { ab_id: string } }[]).map((result) => result.merchant.ab_id);
}

describe("a merchant's lifecycle through the operator command", () => {
  it("goes from a declaration to ACTIVE, is edited, paused and archived, each step visible and audited", async () => {
    const added = await merchants(
      "add",
      declarationFile("martin.json", {
        siret: "12345678200010",
        legal_name: "SARL Boulangerie Martin",
        business_name: "Boulangerie Martinez-Oloron",
        naf_code: "10.71C",
        address: { street: "12 rue de la République", postal_code: "69002", city: "Lyon" },
        email: "contact@boulangerie-martin.fr",
        description: "Boulangerie artisanale : pain au levain et viennoiseries.",
        founded_on: "2015-03-02",
        products: [
          {
            name: "Pain au levain",
            description: "Miche de 1 kg",
            brick_type: "product",
            pricing_model: "fixed",
            price_cents: 650,
          },
        ],
      }),
      "--json",
    );
    expect(added.stderr).toBe("");
    const { abId } = JSON.parse(added.stdout) as { abId: string };
    expect(JSON.parse(added.stdout)).toEqual({ abId, status: "PROBATION", revision: 1 });

    // In probation the merchant is listed: found by name, resolved, announced by the feed.
    expect(await searchIds("Martinez-Oloron")).toEqual([abId]);
    const resolved = await server.getJson(`/api/registry/resolve/${abId}`);
    expect(resolved.status).toBe(200);
    expect(resolved.body._state.merchant_status).toBe("PROBATION");
    expect(await changesOf(abId)).toEqual([[1, "created"]]);

    // The same SIRET again is refused; a bad declaration names its fields and writes nothing.
    const again = await merchants("add", path.join(server.dataDir, "martin.json"));
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(
      `merchants: CONFLICT: SIRET 12345678200010 is already registered as ${abId}; update it instead\n`,
    );
    const bad = await merchants("update", abId, declarationFile("bad.json", { email: "pas-un-email", zones: ["75"] }));
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe(
      "merchants: VALIDATION_ERROR: 2 faults\n  email: must be an email address\n  zones.0: must be a French postal code (5 digits) or a commune name\n",
    );

    const edited = await merchants(
      "update",
      abId,
      declarationFile("edit.json", { description: "Pain au levain, cuit au feu de bois." }),
      "--json",
    );
    expect(JSON.parse(edited.stdout)).toEqual({ abId, changed: ["description"], revision: 2 });
    const sameAgain = await merchants("update", abId, path.join(server.dataDir, "edit.json"), "--json");
    expect(JSON.parse(sameAgain.stdout)).toEqual({ abId, changed: [], revision: 2 });
    // An unreviewed description is withheld from the documents agents read.
    const unreviewed = await server.getJson(`/api/merchants/${abId}/decision-card`);
    expect(JSON.stringify(unreviewed.body)).not.toContain("cuit au feu de bois");

    const early = await merchants("status", abId, "ACTIVE");
    expect(early.code).toBe(1);
    expect(early.stderr).toBe(
      `merchants: CONFLICT: Merchant ${abId}: PROBATION -> ACTIVE: the identity is not verified (siret_verified) and the description is not reviewed (merchants review)\n`,
    );
    expect((await merchants("review", abId)).stdout).toBe(`${abId} description reviewed (revision 3)\n`);
    const reviewed = await server.getJson(`/api/merchants/${abId}/decision-card`);
    expect(JSON.stringify(reviewed.body)).toContain("Pain au levain, cuit au feu de bois.");
    // The official check of the SIRET (the SIRENE import records it; written here as it would be).
    const db = openDatabase(path.join(server.dataDir, "abeille.db"));
    db.$client
      .prepare(
        `INSERT INTO signals (ab_id, key, status, proof_status, source, source_url, value, verified_at, recorded_at, expires_at)
         VALUES (?, 'siret_verified', 'verified', 'official_source_verified', 'official_api', NULL, 'true', ?, ?, ?)`,
      )
      .run(abId, "2026-11-01T09:00:00.000Z", "2026-11-01T09:00:00.000Z", "2028-11-01T09:00:00.000Z");
    db.$client.close();

    expect((await merchants("status", abId, "ACTIVE")).stdout).toBe(`${abId} PROBATION -> ACTIVE (revision 4)\n`);
    expect((await server.getJson(`/api/registry/resolve/${abId}`)).body._state.merchant_status).toBe("ACTIVE");
    expect((await merchants("status", abId, "PAUSED")).stdout).toBe(`${abId} ACTIVE -> PAUSED (revision 5)\n`);
    expect((await server.getJson(`/api/registry/resolve/${abId}`)).body._state.merchant_status).toBe("PAUSED");

    const noReason = await merchants("status", abId, "ARCHIVED");
    expect(noReason.stderr).toBe(
      `merchants: CONFLICT: Merchant ${abId}: PAUSED -> ARCHIVED: a reason is required (--reason)\n`,
    );
    expect((await merchants("status", abId, "ARCHIVED", "--reason", "fermeture définitive")).stdout).toBe(
      `${abId} PAUSED -> ARCHIVED (revision 6)\n`,
    );
    expect((await server.getJson(`/api/registry/resolve/${abId}`)).status).toBe(404);
    expect(await searchIds("Martinez-Oloron")).toEqual([]);
    expect(await changesOf(abId)).toEqual([
      [1, "created"],
      [2, "updated"],
      [3, "updated"],
      [4, "updated"],
      [5, "updated"],
      [6, "withdrawn"],
    ]);

    const shown = JSON.parse((await merchants("show", abId, "--json")).stdout) as {
      revision: number;
      events: {
        revision: number;
        actor: string;
        action: string;
        changes: Record<string, unknown>;
        reason: string | null;
      }[];
    };
    expect(shown.revision).toBe(6);
    expect(
      shown.events.map((event) => [
        event.revision,
        event.actor,
        event.action,
        Object.keys(event.changes),
        event.reason,
      ]),
    ).toEqual([
      [
        1,
        "operator:camille",
        "created",
        [
          "siret",
          "legal_name",
          "business_name",
          "naf_code",
          "address",
          "email",
          "description",
          "founded_on",
          "products",
        ],
        null,
      ],
      [2, "operator:camille", "updated", ["description"], null],
      [3, "operator:camille", "description_reviewed", ["descriptionLlmUnreviewed"], null],
      [4, "operator:camille", "status_changed", ["status"], null],
      [5, "operator:camille", "status_changed", ["status"], null],
      [6, "operator:camille", "status_changed", ["status"], "fermeture définitive"],
    ]);
    const archivedEdit = await merchants("update", abId, path.join(server.dataDir, "edit.json"));
    expect(archivedEdit.stderr).toBe(
      `merchants: CONFLICT: Merchant ${abId} is archived; an archived merchant is not edited\n`,
    );
  }, 120_000);

  it("imports a file of declarations line by line, reports the bad lines by number, and changes nothing the second time", async () => {
    const declaration = (index: number, description: string) =>
      JSON.stringify({
        siret: makeSiret(makeSiren(`7770000${index}`), "0001"),
        legal_name: `SAS Import ${index}`,
        business_name: `Fleuriste Importé ${index}`,
        naf_code: "47.76Z",
        address: { street: `${index} place Bellecour`, postal_code: "69002", city: "Lyon" },
        description,
        founded_on: "2012-05-04",
      });
    const lines = [
      declaration(1, "Fleurs de saison."),
      declaration(2, "Bouquets et compositions."),
      JSON.stringify({ siret: "12345678900000", legal_name: "X" }),
      "",
      "{ pas du JSON",
      // Past the reader's limit (1 MiB): rejected by its number, never held whole.
      `{"description":"${"x".repeat(1024 * 1024)}"}`,
    ];
    const file = path.join(server.dataDir, "bulk.ndjson");
    writeFileSync(file, `${lines.join("\n")}\n`);
    const first = await merchants("import", file);
    expect(first.code).toBe(1);
    expect(first.stdout.split("\n").slice(0, 2)).toEqual([
      "5 read: 2 added, 0 updated, 0 unchanged, 0 done by an earlier run, 3 rejected",
      "line 3: siret: is not a valid SIRET (its check digit is wrong)",
    ]);
    expect(first.stdout).toContain("line 5: (line): the line is not JSON (");
    expect(first.stdout).toContain(
      "line 6: (line): the line is longer than 1 MiB; a line holds one declaration of a few kilobytes",
    );
    expect(first.stdout).toContain("line 3: business_name: is required");
    expect(await searchIds("Fleuriste Importé 2")).toHaveLength(1);

    // The same file again: every line was recorded as done.
    const again = await merchants("import", file, "--json");
    expect(JSON.parse(again.stdout)).toMatchObject({ read: 5, created: 0, updated: 0, unchanged: 0, resumed: 5 });

    // A new file that changes one merchant and repeats the other: one update, one unchanged.
    const edited = path.join(server.dataDir, "bulk-2.ndjson");
    writeFileSync(
      edited,
      `${declaration(1, "Fleurs de saison, livrées le jour même.")}\n${declaration(2, "Bouquets et compositions.")}\n`,
    );
    const second = await merchants("import", edited, "--json");
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toEqual({
      read: 2,
      created: 0,
      updated: 1,
      unchanged: 1,
      resumed: 0,
      rejected: [],
    });
  });

  it("pages through the change feed with next_cursor, and refuses a cursor it did not give", async () => {
    const first = await server.getJson("/api/registry/changes?limit=5");
    expect(first.body.changes).toHaveLength(5);
    expect(first.body.has_more).toBe(true);
    const second = await server.getJson(`/api/registry/changes?limit=5&since=${first.body.next_cursor}`);
    expect(second.body.changes[0]).not.toEqual(first.body.changes[4]);
    expect(Number(second.body.next_cursor)).toBe(Number(first.body.next_cursor) + 5);
    const bad = await server.getJson("/api/registry/changes?since=-1&limit=0");
    expect(bad.status).toBe(400);
    expect(bad.body.data.issues).toEqual([
      { path: "since", message: "must be a cursor from a previous answer's next_cursor" },
      { path: "limit", message: "must be a whole number from 1 to 1000" },
    ]);
  });
});
