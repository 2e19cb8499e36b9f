import type { Action } from "../schemas/envelope.ts";

export type ActionField = Action["fields"][number];

export function action(
  rel: string,
  method: Action["method"],
  href: string,
  title: string,
  fields: ActionField[] = [],
): Action {
  return { rel, method, href, title, fields };
}

/** Resolve, lead creation and order responses carry `_actions` as an object keyed by rel. */
export function actionsByRel(actions: Action[]): Record<string, Action> {
  return Object.fromEntries(actions.map((item) => [item.rel, item]));
}
