import { createEmbeddedSearchIndex } from "../../src/search/embedded/index.ts";
import { describeSearchIndexContract } from "../helpers/search-index-contract.ts";

describeSearchIndexContract("embedded (SQLite FTS5 + R*Tree)", (db) =>
  createEmbeddedSearchIndex(db, { now: () => new Date("2026-06-01T00:00:00.000Z") }),
);
