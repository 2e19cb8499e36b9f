/**
 * SIREN (9 digits, the company) and SIRET (14 digits: SIREN + 5-digit NIC, the establishment).
 * Both carry a Luhn check digit. One exception: La Poste (SIREN 356000000) numbers its many
 * establishments so that the digit sum of the SIRET is a multiple of 5 instead; its head office
 * (35600000000048) passes the ordinary Luhn check.
 */
export const LA_POSTE_SIREN = "356000000";

const NINE_DIGITS = /^\d{9}$/;
const FOURTEEN_DIGITS = /^\d{14}$/;

/** Luhn sum of a digit string: every second digit from the right is doubled. */
function luhnSum(digits: string): number {
  let sum = 0;
  let double = false;
  for (let index = digits.length - 1; index >= 0; index--) {
    let digit = digits.charCodeAt(index) - 48;
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    double = !double;
  }
  return sum;
}

function digitSum(digits: string): number {
  let sum = 0;
  for (let index = 0; index < digits.length; index++) sum += digits.charCodeAt(index) - 48;
  return sum;
}

/** True for a string of digits whose Luhn checksum is a multiple of 10. */
export function isLuhnValid(digits: string): boolean {
  return /^\d+$/.test(digits) && luhnSum(digits) % 10 === 0;
}

/** The digit to append to `digits` so that the whole passes the Luhn check. */
export function luhnCheckDigit(digits: string): string {
  if (!/^\d+$/.test(digits)) throw new TypeError("luhnCheckDigit expects digits only");
  // Appending a digit shifts every existing digit one place left, so the doubling starts at the
  // last digit of `digits`; the appended digit itself is not doubled.
  const sum = luhnSum(`${digits}0`);
  return String((10 - (sum % 10)) % 10);
}

/** Nine digits passing the Luhn check (and La Poste's SIREN). Spaces are not accepted. */
export function isValidSiren(value: unknown): boolean {
  if (typeof value !== "string" || !NINE_DIGITS.test(value)) return false;
  return value === LA_POSTE_SIREN || luhnSum(value) % 10 === 0;
}

/** Fourteen digits whose SIREN part is valid and which pass Luhn (La Poste: digit sum % 5). */
export function isValidSiret(value: unknown): boolean {
  if (typeof value !== "string" || !FOURTEEN_DIGITS.test(value)) return false;
  if (value.startsWith(LA_POSTE_SIREN)) return luhnSum(value) % 10 === 0 || digitSum(value) % 5 === 0;
  return isValidSiren(value.slice(0, 9)) && luhnSum(value) % 10 === 0;
}

/** The SIREN of a SIRET (its first nine digits). */
export function sirenOf(siret: string): string {
  return siret.slice(0, 9);
}

/** A valid SIREN from 8 digits (the Luhn check digit is appended) or 9 (checked as given). */
export function makeSiren(digits: string): string {
  if (/^\d{8}$/.test(digits)) return digits + luhnCheckDigit(digits);
  if (isValidSiren(digits)) return digits;
  throw new RangeError(`Not a SIREN base (8 digits) nor a valid SIREN: ${digits}`);
}

/**
 * A valid SIRET from a SIREN (8 digits completed with their check digit, or 9 valid digits) and
 * a NIC of 4 digits (the fifth is chosen so the SIRET passes its check) or 5 digits (the SIRET
 * must then already be valid).
 */
export function makeSiret(siren: string, nic: string): string {
  const fullSiren = makeSiren(siren);
  if (/^\d{5}$/.test(nic)) {
    const siret = fullSiren + nic;
    if (!isValidSiret(siret)) throw new RangeError(`Invalid SIRET: ${siret}`);
    return siret;
  }
  if (!/^\d{4}$/.test(nic)) throw new RangeError(`A NIC base has 4 digits: ${nic}`);
  const prefix = fullSiren + nic;
  if (fullSiren === LA_POSTE_SIREN) return prefix + String((5 - (digitSum(prefix) % 5)) % 5);
  return prefix + luhnCheckDigit(prefix);
}

/** French intra-community VAT number: FR + key (12 + 3 × (SIREN mod 97)) mod 97 on 2 digits + SIREN. */
export function vatFromSiren(siren: string): string {
  if (!NINE_DIGITS.test(siren)) throw new RangeError(`A SIREN has 9 digits: ${siren}`);
  const key = (12 + 3 * (Number(siren) % 97)) % 97;
  return `FR${String(key).padStart(2, "0")}${siren}`;
}

/** "123 456 789", the way registers print a SIREN. */
export function formatSiren(siren: string): string {
  return `${siren.slice(0, 3)} ${siren.slice(3, 6)} ${siren.slice(6, 9)}`;
}

/** "123 456 789 00012", the way registers print a SIRET (the SIREN, then the NIC). */
export function formatSiret(siret: string): string {
  return `${formatSiren(siret.slice(0, 9))} ${siret.slice(9)}`;
}
