/**
 * Where a merchant reads its leads in its space: the list, and one lead with its answer form.
 * One home for the pages (src/publish/pro/leads.ts) and the lead notification that points to them.
 */
export const leadsPath = (abId: string) => `/pro/${abId}/demandes`;
export const leadPath = (abId: string, leadId: string) => `${leadsPath(abId)}/${leadId}`;
