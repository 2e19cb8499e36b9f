import { describe, expect, it } from "vitest";
import { ConfigError, isMailbox, loadConfig } from "../../src/config/config.ts";

describe("MAIL_FROM", () => {
  it("accepts an address or a named mailbox, and defaults to the demo sender", () => {
    expect(loadConfig({}).mail.from).toBe("Abeille <no-reply@abeille.local>");
    expect(loadConfig({ MAIL_FROM: "Abeille <bonjour@exemple.fr>" }).mail.from).toBe("Abeille <bonjour@exemple.fr>");
    expect(loadConfig({ MAIL_FROM: "bonjour@exemple.fr" }).mail.from).toBe("bonjour@exemple.fr");
    expect(isMailbox('"Équipe Abeille" <equipe@exemple.fr>')).toBe(true);
  });

  it("stops the start with a message naming the variable when it is no address", () => {
    for (const wrong of ["abeille", "Abeille <pas une adresse>", "a@b.fr\r\nBcc: c@d.fr"]) {
      expect(() => loadConfig({ MAIL_FROM: wrong })).toThrow(ConfigError);
      expect(() => loadConfig({ MAIL_FROM: wrong })).toThrow(
        /^Invalid configuration: MAIL_FROM: must be an email address/,
      );
    }
  });
});
