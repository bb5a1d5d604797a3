# syntax=docker/dockerfile:1
# The arena's image: the web app (Next's standalone server), the worker, the migration and seed commands, and what
# evaluation pods take from it (the pod agent bundle at /opt/arena/pod-agent, the engine launcher at
# /opt/arena/engine-launcher). The build stage makes the image's file tree with lib/ops/image-tree/build-image-tree.ts,
# the same steps `npm run build:image` runs outside Docker; the runtime stage is that tree and Node, run as uid 1000.
# Build on the GPU nodes' architecture: the pod agent bundle carries this image's node binary.
#
#   docker build -t registry.example.org/speculator-arena:1.0.0 .

ARG NODE_IMAGE=node:20.20-bookworm-slim

FROM ${NODE_IMAGE} AS deps
WORKDIR /src
COPY package.json package-lock.json ./
# install scripts stay off (package.json's allowScripts): esbuild's and Prisma's engines come as packages
RUN npm ci --ignore-scripts --no-audit --no-fund

FROM deps AS build
COPY . .
ENV NEXT_TELEMETRY_DISABLED=1
RUN bash lib/ops/prisma.sh generate \
 && node_modules/.bin/tsx lib/ops/image-tree/build-image-tree.ts --out /image

FROM ${NODE_IMAGE} AS runtime
# python3 runs the engine container's launcher and the red-team probe where this image is the engine image (the sim
# runtime); the pinned vLLM image has its own
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 PORT=3000 HOSTNAME=0.0.0.0
COPY --from=build /image/app /app
COPY --from=build /image/opt/arena /opt/arena
WORKDIR /app
USER 1000:1000
EXPOSE 3000
# the web app; the worker's and the Job's commands are in k8s/ (node bundles/worker/worker.mjs, bundles/ops/...)
CMD ["node", "server.js"]
