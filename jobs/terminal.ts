/**
 * Text that came from outside (an agent's name, a merchant's declaration) printed on an
 * operator's terminal: control characters shown as \uXXXX, so an escape sequence cannot clear
 * the screen, move the cursor or fake a row.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters escaped.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

export function printable(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.replace(CONTROL_CHARACTERS, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
