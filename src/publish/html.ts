/**
 * A tiny HTML builder: `html\`...\`` escapes every interpolated value unless it is already
 * SafeHtml (the result of another `html` call or of `raw`). Arrays are joined. No templates, no
 * framework: the microsite is one pure function, so the server and the refresh job agree byte for byte.
 */
export class SafeHtml {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);
}

export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | HtmlValue[];

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return "";
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join("");
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? "";
  for (let index = 0; index < values.length; index++) {
    out += render(values[index]) + (strings[index + 1] ?? "");
  }
  return new SafeHtml(out);
}

/** Trusted markup as it stands (never pass user or merchant text here). */
export function raw(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

/**
 * JSON for a `<script type="application/ld+json">` block: `<`, `>` and `&` written as JSON
 * escapes so no text inside can close the script element or open a comment.
 */
export function jsonForScript(value: unknown): SafeHtml {
  return new SafeHtml(
    JSON.stringify(value)
      .replace(/</g, "\\u003c")
      .replace(/>/g, "\\u003e")
      .replace(/&/g, "\\u0026")
      .replace(/\u2028/g, "\\u2028")
      .replace(/\u2029/g, "\\u2029"),
  );
}
