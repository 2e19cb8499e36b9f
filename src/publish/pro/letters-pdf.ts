import { PDFDocument, type PDFFont, type PDFPage, rgb, StandardFonts } from "pdf-lib";
import { LETTER_CODE_WRONG_TRIES, type LetterBatch, type PrintedLetter } from "../../domain/merchant-space/letters.ts";
import { formatDateFr } from "../format-fr.ts";

/**
 * The printable batch of postal letters (`npm run merchants -- letters`): one A4 page per
 * establishment, in French, addressed to its SIRENE name and address where a French window
 * envelope shows it (docs/merchant-space.md, "Par courrier").
 */

export interface LetterSender {
  /** The service's public address: the letter sends the merchant to `{baseUrl}/pro/code`. */
  baseUrl: string;
  /** Who runs the service (OPERATOR_NAME). */
  operatorName: string;
  /** Where to ask for a new letter (PLATFORM_TEAM_EMAIL). */
  teamEmail: string;
}

const MM = 72 / 25.4;
const A4: [number, number] = [210 * MM, 297 * MM];
const LEFT = 20 * MM;
const RIGHT = 20 * MM;
const TEXT_WIDTH = A4[0] - LEFT - RIGHT;
/** A window envelope's window (DL/C5, window on the right): 110 mm from the left, 45 to 90 mm from the top. */
const WINDOW_LEFT = 110 * MM;
const WINDOW_TOP = 50 * MM;

export async function renderLettersPdf(batch: LetterBatch, sender: LetterSender): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  pdf.setTitle(`Abeille : courriers de codes d'accès (${batch.letters.length})`);
  pdf.setAuthor(sender.operatorName);
  pdf.setCreator("Abeille (npm run merchants -- letters)");
  pdf.setCreationDate(new Date(batch.createdAt));
  pdf.setModificationDate(new Date(batch.createdAt));
  const fonts: Fonts = {
    regular: await pdf.embedFont(StandardFonts.Helvetica),
    bold: await pdf.embedFont(StandardFonts.HelveticaBold),
    code: await pdf.embedFont(StandardFonts.CourierBold),
  };
  for (const letter of batch.letters) drawLetter(pdf.addPage(A4), fonts, letter, batch.createdAt, sender);
  return pdf.save();
}

interface Fonts {
  regular: PDFFont;
  bold: PDFFont;
  code: PDFFont;
}

function drawLetter(page: PDFPage, fonts: Fonts, letter: PrintedLetter, sentAt: string, sender: LetterSender): void {
  const { recipient } = letter;
  const spaceUrl = `${sender.baseUrl}/pro/code`;
  const top = (mm: number) => A4[1] - mm * MM;
  const line = (text: string, x: number, y: number, font: PDFFont, size: number) =>
    page.drawText(printable(font, text), { x, y, size, font, color: rgb(0, 0, 0) });

  // Sender, top left.
  line(sender.operatorName, LEFT, top(20), fonts.bold, 11);
  line("Abeille, registre des commerçants de proximité", LEFT, top(25), fonts.regular, 9);
  line(sender.baseUrl, LEFT, top(29.5), fonts.regular, 9);

  // Recipient, in the envelope's window.
  const names =
    recipient.businessName === recipient.legalName
      ? [recipient.legalName]
      : [recipient.businessName, recipient.legalName];
  const address = [...names, recipient.street, `${recipient.postalCode} ${recipient.city}`];
  for (const [index, text] of address.entries()) {
    line(text, WINDOW_LEFT, top(WINDOW_TOP / MM + 5 + index * 5), index === 0 ? fonts.bold : fonts.regular, 10.5);
  }

  line(`Le ${formatDateFr(sentAt)}`, WINDOW_LEFT, top(100), fonts.regular, 10);
  let y = top(115);
  y = paragraph(page, fonts.bold, 11, `Objet : votre code pour gérer la fiche de votre établissement sur Abeille`, y);
  y -= 4 * MM;
  const body = [
    "Madame, Monsieur,",
    "Abeille est un registre public des commerçants et artisans de proximité en France, dont l'identité est vérifiée dans les registres officiels de l'État (répertoire SIRENE). Les assistants d'intelligence artificielle le consultent pour recommander des commerces et leur transmettre les demandes de leurs utilisateurs.",
    `Votre établissement (SIRET ${recipient.siret}) y figure à partir des données publiques. Vous pouvez, gratuitement, indiquer l'adresse électronique où recevoir les demandes, vos horaires, vos produits et vos prix, et corriger votre fiche. Pour cela, rendez-vous sur :`,
  ];
  for (const text of body) y = paragraph(page, fonts.regular, 10.5, text, y) - 3 * MM;
  y = paragraph(page, fonts.bold, 12, spaceUrl, y) - 3 * MM;
  y = paragraph(page, fonts.regular, 10.5, "et saisissez ce code, avec votre adresse électronique :", y) - 4 * MM;
  line(letter.code, LEFT + 10 * MM, y - 6, fonts.code, 22);
  y -= 14 * MM;
  const after = [
    `Ce code est personnel et ne vaut que pour cet établissement. Il ne sert qu'une fois et expire le ${formatDateFr(letter.expiresAt)}. Après ${LETTER_CODE_WRONG_TRIES} essais erronés, il est bloqué : demandez alors un nouveau courrier à ${sender.teamEmail}. Un nouveau courrier remplace celui-ci.`,
    "Une fois connecté, vous pourrez revenir dans votre espace en demandant un lien de connexion envoyé à cette adresse électronique. Si vous n'êtes pas le responsable de cet établissement, merci de transmettre ce courrier ou de le détruire.",
    "Veuillez agréer, Madame, Monsieur, nos salutations distinguées.",
    `L'équipe ${sender.operatorName}`,
  ];
  for (const text of after) y = paragraph(page, fonts.regular, 10, text, y) - 3 * MM;
}

/** Draws `text` wrapped to the text width from `y` down; returns the y below it. */
function paragraph(page: PDFPage, font: PDFFont, size: number, text: string, y: number): number {
  const lineHeight = size * 1.35;
  let current = "";
  let at = y;
  const flush = () => {
    page.drawText(current, { x: LEFT, y: at - size, size, font, color: rgb(0, 0, 0) });
    at -= lineHeight;
  };
  for (const word of printable(font, text).split(" ")) {
    const candidate = current === "" ? word : `${current} ${word}`;
    if (current !== "" && font.widthOfTextAtSize(candidate, size) > TEXT_WIDTH) {
      flush();
      current = word;
    } else {
      current = candidate;
    }
  }
  if (current !== "") flush();
  return at;
}

/**
 * The text as the standard fonts can write it (WinAnsi: French letters, « », ’, œ and € are in):
 * another character loses its accent, or becomes "?", rather than fail the whole batch.
 */
function printable(font: PDFFont, text: string): string {
  let out = "";
  for (const character of text.replace(/[\u202F\u00A0]/g, " ")) {
    if (canEncode(font, character)) {
      out += character;
      continue;
    }
    const plain = character.normalize("NFKD").replace(/\p{M}/gu, "");
    out += plain !== "" && [...plain].every((part) => canEncode(font, part)) ? plain : "?";
  }
  return out;
}

function canEncode(font: PDFFont, character: string): boolean {
  try {
    font.encodeText(character);
    return true;
  } catch {
    return false;
  }
}
