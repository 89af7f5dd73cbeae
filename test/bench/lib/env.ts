/**
 * Imported first by the benchmark helpers: the AWS SDK warns, when a client is built, that its
 * Node 20 support ends in 2027 (the Lambdas run nodejs22.x). Benchmarks print tables; keep the
 * warning out of them.
 */
process.env["AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED"] ??= "true";
