/**
 * Reads back the text of the letters' PDF (src/publish/pro/letters-pdf.ts) with pdf-lib: each
 * page's content stream, inflated, its text operators decoded (the standard fonts write WinAnsi
 * bytes as hex strings). Enough to check what a printed letter says and find its code.
 */
import { inflateSync } from "node:zlib";
import { PDFArray, PDFDocument, PDFName, PDFRawStream, type PDFRef } from "pdf-lib";

const WIN_ANSI = new TextDecoder("windows-1252");

export async function pdfPagesText(bytes: Uint8Array): Promise<string[]> {
  const pdf = await PDFDocument.load(bytes);
  return pdf.getPages().map((page) => {
    const contents = page.node.get(PDFName.of("Contents"));
    const refs = contents instanceof PDFArray ? contents.asArray() : [contents];
    const streams = refs.map((ref) => pdf.context.lookup(ref as PDFRef));
    return streams
      .map((stream) => {
        if (!(stream instanceof PDFRawStream)) throw new Error("unexpected content stream");
        const filter = stream.dict.get(PDFName.of("Filter"));
        const raw = filter === PDFName.of("FlateDecode") ? inflateSync(stream.contents) : Buffer.from(stream.contents);
        return textOperators(raw.toString("latin1"));
      })
      .join("\n");
  });
}

/** The strings of the Tj operators, one a line, in drawing order. */
function textOperators(content: string): string {
  const lines: string[] = [];
  for (const match of content.matchAll(/<([0-9A-Fa-f]*)>\s*Tj/g)) {
    lines.push(WIN_ANSI.decode(Buffer.from(match[1] ?? "", "hex")));
  }
  return lines.join("\n");
}

/** The letter codes printed in a page's text. */
export function codesIn(text: string): string[] {
  return [...text.matchAll(/\b[0-9A-HJKMNP-TV-Z]{4}(?:-[0-9A-HJKMNP-TV-Z]{4}){3}\b/g)].map((match) => match[0]);
}
