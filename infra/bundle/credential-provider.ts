/**
 * Bundle-time stand-in for `@aws-sdk/credential-provider-node` (aliased in infra/build.ts).
 *
 * Lambda hands a function its role's credentials in AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY
 * and AWS_SESSION_TOKEN, so the first link of the default chain is the only one ever used.
 * Replacing the chain with `fromEnv` drops SSO, ini files, credential_process, web identity,
 * IMDS and ECS providers from every bundle.
 *
 * Contract: the SDK clients' `runtimeConfig.js` import only `defaultProvider` and call it as
 * `credentialDefaultProvider({ ...clientConfig, parentClientConfig })`, expecting a provider
 * function back. Only `logger` is read from that config here.
 */
import { fromEnv } from "@aws-sdk/credential-provider-env";

type Provider = ReturnType<typeof fromEnv>;
type Logger = NonNullable<Parameters<typeof fromEnv>[0]>["logger"];

export const defaultProvider = (init: { readonly logger?: Logger } = {}): Provider =>
  fromEnv(init.logger ? { logger: init.logger } : {});
