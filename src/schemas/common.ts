import { z } from "zod";

export const AB_ID_PATTERN = /^ab_[a-z0-9]{8}$/;

export const abIdSchema = z
  .string()
  .regex(AB_ID_PATTERN, "must match ^ab_[a-z0-9]{8}$ (ab_ followed by 8 lowercase letters or digits)")
  .meta({ id: "MerchantId", description: "Merchant identifier", example: "ab_3k9x2m7q" });

export const uuidSchema = z.uuid();

/** Query-string values arrive as strings; an empty value means "not given". */
export const emptyAsUndefined = (value: unknown) => (value === "" ? undefined : value);

export const queryBoolean = z.preprocess(
  emptyAsUndefined,
  z
    .enum(["true", "false", "1", "0"], { message: "must be true, false, 1 or 0" })
    .transform((value) => value === "true" || value === "1")
    .optional(),
);

export const isoDateTime = z.iso.datetime();
