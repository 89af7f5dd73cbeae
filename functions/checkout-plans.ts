import { api } from "../shared/http/api.ts";
import { catalogRepo } from "../shared/db/catalog-repo.ts";
import { listPublishedPlans } from "../shared/domain/checkout/checkout.ts";
import { plansReply } from "../shared/http/schemas/checkout.ts";

export const handler = api("checkout.plans", { response: plansReply }, async () => ({
  body: { plans: await listPublishedPlans(catalogRepo) },
}));
