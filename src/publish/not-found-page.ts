import { HTML_TYPE, type RenderedDocument, renderedDocument } from "./document.ts";
import { buildNotFoundBody, buildPeoplePage } from "./front-door.ts";

/**
 * The French "page not found" for people (unknown, suspended or archived merchant microsites and
 * any non-API path), with the search of the front door so that a person can go on. API paths
 * keep answering in the JSON envelope.
 */
export function buildNotFoundPage(options: { title?: string; message?: string } = {}): string {
  const title = options.title ?? "Page introuvable";
  const message =
    options.message ??
    "La page demandée n'existe pas ou n'est plus publiée. Le commerçant a peut-être quitté le registre, ou l'adresse contient une erreur.";
  return buildPeoplePage({ title, body: buildNotFoundBody(title, message), robots: "noindex" });
}

export function renderNotFoundPage(options: { title?: string; message?: string } = {}): RenderedDocument {
  return renderedDocument(buildNotFoundPage(options), HTML_TYPE);
}
