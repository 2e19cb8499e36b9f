import { HTML_TYPE, type RenderedDocument, renderedDocument } from "./document.ts";
import { html } from "./html.ts";
import { MICROSITE_STYLESHEET } from "./microsite.ts";

/**
 * The French "page not found" for people (unknown, suspended or archived merchant microsites and
 * any non-API path). API paths keep answering in the JSON envelope.
 */
export function buildNotFoundPage(options: { title?: string; message?: string } = {}): string {
  const title = options.title ?? "Page introuvable";
  const message =
    options.message ??
    "La page demandée n'existe pas ou n'est plus publiée. Le commerçant a peut-être quitté le registre, ou l'adresse contient une erreur.";
  return html`<!doctype html>
<html lang="fr">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title} · Abeille</title>
<link rel="stylesheet" href="${MICROSITE_STYLESHEET}">
</head>
<body>
<a class="skip-link" href="#contenu">Aller au contenu</a>
<header class="site-header">
<p class="brand">Abeille <span class="brand-tagline">registre des commerçants vérifiés</span></p>
</header>
<main id="contenu" tabindex="-1" class="not-found">
<h1>${title}</h1>
<p>${message}</p>
<p>Erreur 404.</p>
</main>
<footer class="site-footer">
<p>Abeille, registre des commerçants vérifiés.</p>
</footer>
</body>
</html>
`.value;
}

export function renderNotFoundPage(options: { title?: string; message?: string } = {}): RenderedDocument {
  return renderedDocument(buildNotFoundPage(options), HTML_TYPE);
}
