/**
 * The schema.org vocabulary as the schema-dts package (a registry package, generated from
 * schema.org's own vocabulary file) declares it: each type's properties, its ancestors' included,
 * read from the package's declaration file. Nothing is downloaded: the package is a dev
 * dependency. `schemaOrgProblems` walks a JSON-LD document and names every `@type` the vocabulary
 * does not define and every property a node's type does not have.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

export interface Vocabulary {
  /** Type name -> every property it has (its ancestors' included). */
  properties: Map<string, Set<string>>;
  /** Type name -> the types it descends from (LocalBusiness, Organization, Place, Thing...). */
  ancestors: Map<string, Set<string>>;
}

let vocabulary: Vocabulary | undefined;

export function schemaOrgVocabulary(): Vocabulary {
  if (vocabulary) return vocabulary;
  const require = createRequire(import.meta.url);
  const declarations = readFileSync(
    path.join(path.dirname(require.resolve("schema-dts/package.json")), "dist", "schema.d.ts"),
    "utf8",
  );
  // interface XBase extends ABase, BBase { "prop"?: ...; ... }  and  interface XLeaf extends ABase { "@type": "X"; }
  const bases = new Map<string, { parents: string[]; own: string[] }>();
  const leaves = new Map<string, string[]>();
  const block = /^(?:export )?interface (\w+?)(Base|Leaf) extends ([^{]+)\{([\s\S]*?)^\}/gm;
  for (const match of declarations.matchAll(block)) {
    const [, name = "", kind, extendsList = "", body = ""] = match;
    const parents = extendsList
      .split(",")
      .map((parent) => parent.trim())
      .filter((parent) => /^\w+Base$/.test(parent));
    if (kind === "Base") {
      const own = [...body.matchAll(/^ {4}"([^"@][^"]*)"\??:/gm)].map((property) => property[1] ?? "");
      bases.set(`${name}Base`, { parents, own });
    } else {
      const type = /"@type": "(\w+)"/.exec(body)?.[1];
      if (type) leaves.set(type, parents);
    }
  }
  const closure = new Map<string, Set<string>>();
  const propertiesOfBase = (base: string): Set<string> => {
    const known = closure.get(base);
    if (known) return known;
    const entry = bases.get(base);
    const result = new Set(entry?.own ?? []);
    for (const parent of entry?.parents ?? []) for (const property of propertiesOfBase(parent)) result.add(property);
    closure.set(base, result);
    return result;
  };
  const basesOf = (base: string, into: Set<string>): Set<string> => {
    into.add(base.replace(/Base$/, ""));
    for (const parent of bases.get(base)?.parents ?? []) basesOf(parent, into);
    return into;
  };
  const properties = new Map<string, Set<string>>();
  const ancestors = new Map<string, Set<string>>();
  for (const [type, parents] of leaves) {
    const all = new Set<string>();
    for (const parent of parents) for (const property of propertiesOfBase(parent)) all.add(property);
    properties.set(type, all);
    const lineage = new Set<string>();
    for (const parent of parents) basesOf(parent, lineage);
    ancestors.set(type, lineage);
  }
  vocabulary = { properties, ancestors };
  return vocabulary;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every `@type` unknown to schema.org and every property its node's type does not have, by path. */
export function schemaOrgProblems(document: unknown): string[] {
  const { properties } = schemaOrgVocabulary();
  const problems: string[] = [];
  const visit = (node: Json, at: string) => {
    if (Array.isArray(node)) {
      for (const [index, item] of node.entries()) visit(item, `${at}[${index}]`);
      return;
    }
    if (node === null || typeof node !== "object") return;
    const typeValue = node["@type"];
    const types = (Array.isArray(typeValue) ? typeValue : typeValue === undefined ? [] : [typeValue]).map(String);
    const known = types.filter((type) => {
      if (properties.has(type)) return true;
      problems.push(`${at}: @type ${type} is not a schema.org type`);
      return false;
    });
    for (const [key, value] of Object.entries(node)) {
      if (key.startsWith("@")) {
        continue;
      }
      if (known.length > 0 && !known.some((type) => properties.get(type)?.has(key))) {
        problems.push(`${at}.${key}: not a property of ${known.join(", ")}`);
      }
      visit(value, `${at}.${key}`);
    }
  };
  visit(document as Json, "$");
  return problems;
}
