import { describe, expect, it } from "vitest";
import { utf8Bytes } from "../../src/domain/utf8.ts";

describe("utf8Bytes", () => {
  const long = (text: string) => text.repeat(Math.ceil(2_000 / text.length));

  it("gives the bytes Buffer.from gives, for short and long text, Latin-1, wider characters and emoji", () => {
    for (const text of [
      "",
      "abc",
      "Boulangerie — pain au levain, 12 €",
      long("Café crème, œuf cocotte "),
      long("Plombier — dépannage 24 h/24, devis à 45 € "),
      long("Fleurs 💐 et plantes 🌿 "),
    ]) {
      expect(utf8Bytes(text).equals(Buffer.from(text, "utf8"))).toBe(true);
    }
  });

  it("writes a lone surrogate of a long text as U+FFFD, as Buffer.from does", () => {
    const text = `${long("Œuvre — ")}\ud800${long("x")}`;
    const bytes = utf8Bytes(text);
    expect(bytes.equals(Buffer.from(text, "utf8"))).toBe(true);
    expect(bytes.includes(Buffer.from([0xef, 0xbf, 0xbd]))).toBe(true);
  });
});
