/** The text of a quoted-printable .eml (as the file transport writes it), decoded as UTF-8. */
export function decodeQuotedPrintable(text: string): string {
  const bytes = text
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/gi, (_all, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  return Buffer.from(bytes, "latin1").toString("utf8");
}

/** The Subject header, unfolded, with RFC 2047 encoded words decoded. */
export function subjectOf(raw: string): string {
  const header = /^Subject: (.*(?:\r?\n[ \t].*)*)/m.exec(raw)?.[1] ?? "";
  return (
    header
      // Whitespace between two encoded words, folded or not, is not text (RFC 2047, 6.2).
      .replace(/\?=\s+=\?/g, "?==?")
      .replace(/\r?\n[ \t]+/g, " ")
      .replace(/=\?utf-8\?([QB])\?([^?]*)\?=/gi, (_all, kind: string, text: string) =>
        kind.toUpperCase() === "B"
          ? Buffer.from(text, "base64").toString("utf8")
          : Buffer.from(
              text
                .replace(/_/g, " ")
                .replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
              "latin1",
            ).toString("utf8"),
      )
      .trim()
  );
}

/** The text/plain part of a raw message, quoted-printable or base64 decoded. */
export function textPart(raw: string): string {
  const match = /Content-Type: text\/plain[\s\S]*?Content-Transfer-Encoding: ([\w-]+)\r?\n\r?\n([\s\S]*?)\r?\n--/i.exec(
    raw,
  );
  if (!match) return raw;
  const [, encoding, body = ""] = match;
  if (encoding?.toLowerCase() === "base64") return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
  if (encoding?.toLowerCase() === "quoted-printable") return decodeQuotedPrintable(body);
  return body;
}
