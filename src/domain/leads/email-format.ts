/**
 * Plain building blocks for the French notification emails: a text part and a simple HTML part
 * built from the same sections. No images, no remote resources, no tracking of any kind.
 */
export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

export interface EmailRow {
  label: string;
  value: string;
}

export interface EmailSection {
  title: string;
  rows?: EmailRow[];
  /** Free text; kept as written (line breaks preserved). */
  body?: string;
  paragraphs?: string[];
}

export interface EmailLayout {
  heading: string;
  intro: string[];
  sections: EmailSection[];
  footer: string[];
}

export function renderLayout(layout: EmailLayout): { text: string; html: string } {
  return { text: renderText(layout), html: renderHtml(layout) };
}

function renderText(layout: EmailLayout): string {
  const lines: string[] = [...layout.intro.flatMap((paragraph) => [paragraph, ""])];
  for (const section of layout.sections) {
    lines.push(`— ${section.title} —`);
    for (const row of section.rows ?? []) lines.push(`${row.label} : ${row.value}`);
    if (section.body !== undefined) lines.push(section.body);
    for (const paragraph of section.paragraphs ?? []) lines.push(paragraph);
    lines.push("");
  }
  lines.push("-- ", ...layout.footer);
  return `${lines.join("\n")}\n`;
}

function renderHtml(layout: EmailLayout): string {
  const parts: string[] = [
    '<!doctype html><html lang="fr"><head><meta charset="utf-8"><title>',
    escapeHtml(layout.heading),
    "</title></head>",
    '<body style="font-family: Arial, Helvetica, sans-serif; color: #1f2328; line-height: 1.5; max-width: 640px;">',
    `<h1 style="font-size: 20px;">${escapeHtml(layout.heading)}</h1>`,
    ...layout.intro.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`),
  ];
  for (const section of layout.sections) {
    parts.push(`<h2 style="font-size: 16px; margin-top: 24px;">${escapeHtml(section.title)}</h2>`);
    if (section.rows && section.rows.length > 0) {
      parts.push('<table style="border-collapse: collapse;">');
      for (const row of section.rows) {
        parts.push(
          `<tr><th style="text-align: left; padding: 2px 12px 2px 0; vertical-align: top;">${escapeHtml(row.label)}</th>` +
            `<td style="padding: 2px 0;">${escapeHtml(row.value)}</td></tr>`,
        );
      }
      parts.push("</table>");
    }
    if (section.body !== undefined) {
      parts.push(`<p style="white-space: pre-wrap;">${escapeHtml(section.body)}</p>`);
    }
    for (const paragraph of section.paragraphs ?? []) parts.push(`<p>${escapeHtml(paragraph)}</p>`);
  }
  parts.push(
    `<hr><p style="font-size: 12px; color: #57606a;">${layout.footer.map(escapeHtml).join("<br>")}</p>`,
    "</body></html>",
  );
  return parts.join("\n");
}

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

const DATE_TIME = new Intl.DateTimeFormat("fr-FR", { dateStyle: "long", timeStyle: "short", timeZone: "Europe/Paris" });
const NUMBER = new Intl.NumberFormat("fr-FR");

/** "22 novembre 2026 à 08:20" (Paris time). */
export function frenchDateTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : DATE_TIME.format(date);
}

/** 2027-06-15 -> 15/06/2027. */
export function frenchDate(day: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  return match ? `${match[3]}/${match[2]}/${match[1]}` : day;
}

export function frenchNumber(value: number): string {
  return NUMBER.format(value);
}

/** An option code made readable: team_building -> Team building. */
export function humanizeCode(code: string): string {
  const spaced = code.replace(/_/g, " ");
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

/** Header values: single line, bounded. */
export function oneLine(text: string, max = 120): string {
  const flat = text.replace(/[\r\n\t]+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
