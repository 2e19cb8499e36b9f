/** Every public URL of one merchant's documents, built on BASE_URL (absolute, as DESIGN asks). */
export interface MerchantLinks {
  microsite: string;
  aiMd: string;
  jsonld: string;
  aiDigest: string;
  decisionCard: string;
  clusters: string;
  resolve: string;
  manifest: string;
  snapshot: string;
  jwks: string;
  lead: string;
}

export function merchantLinks(baseUrl: string, abId: string): MerchantLinks {
  return {
    microsite: `${baseUrl}/m/${abId}/`,
    aiMd: `${baseUrl}/m/${abId}/ai.md`,
    jsonld: `${baseUrl}/api/merchants/${abId}/jsonld`,
    aiDigest: `${baseUrl}/api/merchants/${abId}/ai-digest`,
    decisionCard: `${baseUrl}/api/merchants/${abId}/decision-card`,
    clusters: `${baseUrl}/api/merchants/${abId}/clusters`,
    resolve: `${baseUrl}/api/registry/resolve/${abId}`,
    manifest: `${baseUrl}/api/registry/verify/${abId}`,
    snapshot: `${baseUrl}/api/registry/verify/${abId}?snapshot=1`,
    jwks: `${baseUrl}/.well-known/ab-public-keys.json`,
    lead: `${baseUrl}/api/contact/brick`,
  };
}

export function clusterUrl(baseUrl: string, clusterId: string): string {
  return `${baseUrl}/api/clusters/${clusterId}`;
}

export function evidenceUrl(baseUrl: string, signal: string, abId: string): string {
  return `${baseUrl}/api/verify/${signal}/${abId}`;
}

/** A lead's status page (its holder reads it with the tracking token). */
export function leadUrl(baseUrl: string, leadId: string): string {
  return `${baseUrl}/api/leads/${leadId}`;
}
