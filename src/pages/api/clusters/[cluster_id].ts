import { ServiceError } from "../../../errors/service-error.ts";
import { methodNotAllowed, route } from "../../../http/route.ts";
import { operation } from "../../../openapi/operations.ts";
import { renderClusterDocument } from "../../../publish/clusters.ts";
import { documentResponse } from "../../../publish/http.ts";
import { isPublishedStatus, merchantView } from "../../../publish/view.ts";

/**
 * One Q&A cluster with its nodes and their verification status. A cluster of a merchant that is
 * not published (suspended, archived) is the same 404 as an unknown one.
 */
export const GET = route(operation("getCluster"), async ({ app, pathParams }) => {
  const { cluster_id } = pathParams();
  const notFound = () => new ServiceError("NOT_FOUND", `No published Q&A cluster has id ${cluster_id}`);
  const cluster = await app.merchants.findCluster(cluster_id);
  if (!cluster) throw notFound();
  const profile = await app.merchants.findProfile(cluster.abId);
  if (!profile || !isPublishedStatus(profile.merchant.status)) throw notFound();
  const view = merchantView(profile, {
    baseUrl: app.config.baseUrl,
    orderRailEnabled: app.config.publicOrderRailEnabled,
    now: app.now(),
  });
  const current = profile.clusters.find((item) => item.clusterId === cluster_id) ?? cluster;
  return documentResponse(renderClusterDocument(view, current));
});

export const HEAD = GET;
export const ALL = methodNotAllowed(["GET"]);
