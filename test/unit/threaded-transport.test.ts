import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createThreadedMailTransport } from "../../src/mail/threaded-transport.ts";
import type { OutgoingMail } from "../../src/mail/transport.ts";

const mail = (outboxId: string): OutgoingMail => ({
  outboxId,
  fileStem: "20261122T100000Z-lead_notification",
  to: "contact@boulangerie-martin.fr",
  subject: "Nouvelle demande de devis",
  text: "Bonjour, une demande vous attend.",
  html: "<p>Bonjour, une demande vous attend.</p>",
});

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "abeille-mail-thread-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("mail transport in a worker thread", () => {
  it("writes the same .eml files as the direct transport, several in flight at once", async () => {
    const transport = createThreadedMailTransport({
      smtp: null,
      from: "Abeille <no-reply@abeille.local>",
      outboxDir: dir,
    });
    try {
      const deliveries = await Promise.all(["m1", "m2", "m3"].map((id) => transport.send(mail(id))));
      expect(transport.kind).toBe("file");
      for (const [index, delivery] of deliveries.entries()) {
        expect(delivery.file).toBe(path.join(dir, `20261122T100000Z-lead_notification-m${index + 1}.eml`));
        const eml = readFileSync(delivery.file ?? "", "utf8");
        expect(eml).toContain(`Message-ID: <m${index + 1}@abeille.local>`);
        expect(eml).toContain("Subject: Nouvelle demande de devis");
      }
    } finally {
      transport.close();
    }
  });

  it("rejects with the failure's code when the thread cannot deliver", async () => {
    const blocked = path.join(dir, "not-a-directory");
    writeFileSync(blocked, "");
    const transport = createThreadedMailTransport({
      smtp: null,
      from: "Abeille <no-reply@abeille.local>",
      outboxDir: path.join(blocked, "outbox"),
    });
    try {
      await expect(transport.send(mail("m1"))).rejects.toMatchObject({ code: "ENOTDIR" });
    } finally {
      transport.close();
    }
  });
});
