# The service's images, one per role, from one build (docker build --target <role>):
#   api             the HTTP API (and the dashboard it serves)
#   worker-core     ledger, webhooks, mail, batches, the sweeper
#   worker-cpu      hashing, images, QR, the upscaling model, LibreOffice for word-to-pdf
#   worker-network  the network probes and page readers
#   worker-browser  Chromium's headless shell for captures
# Each holds only what its role runs: its system packages, and of node_modules only the packages
# its modules load (scripts/role-packages.mjs). test/deploy/images.test.ts reads these stages.

# The base: Debian 12 with Node 24 and npm. Where no registry serves it, `npm run test:images` makes an
# equivalent one locally and passes it here (scripts/images/base-image.mjs).
ARG NODE_IMAGE=node:24-bookworm-slim

# The roles' system layers first: they depend on nothing of the source, so a change to the code
# rebuilds none of them. What every role shares: Node, an unprivileged user (numeric, so an
# orchestrator can check it is not root), the blob volume's mount point.
FROM ${NODE_IMAGE} AS system
WORKDIR /app
ENV NODE_ENV=production \
    PUPPETEER_SKIP_DOWNLOAD=1
# The blob volume's mount point (big outputs: written by the workers, read by the API), owned by the
# app's user: a new named volume takes this ownership, where a missing directory would be root's.
RUN mkdir -p /data/blobs && chown 1000:1000 /data/blobs

# Fonts for every script, for the roles that draw text: documents (cpu) and pages (browser).
FROM system AS system-fonts
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      fonts-dejavu-core fonts-liberation fonts-noto-cjk fonts-noto-color-emoji \
 && rm -rf /var/lib/apt/lists/*

# LibreOffice driven over UNO (word-to-pdf). LibreOffice keeps its profiles under the user's home.
FROM system-fonts AS system-cpu
RUN apt-get update \
 && apt-get install -y --no-install-recommends libreoffice-writer-nogui python3-uno \
 && rm -rf /var/lib/apt/lists/*

# Chromium's headless shell; CA certificates for HTTPS pages. It draws in software (--disable-gpu:
# Skia, and its own SwiftShader), so Mesa's GPU drivers with the LLVM and Z3 they compile shaders with
# (~160 MB, in through chromium-common's dependency on libgl1-mesa-dri) and Vulkan's validation layer
# are left out of what the packages unpack.
FROM system-fonts AS system-browser
RUN printf 'path-exclude %s\n' '/usr/lib/*/dri/*' '/usr/lib/*/libLLVM-*' '/usr/lib/*/libz3.so*' \
      '/usr/lib/chromium/libVkLayer_khronos_validation.so' > /etc/dpkg/dpkg.cfg.d/software-rendering \
 && apt-get update \
 && apt-get install -y --no-install-recommends chromium-headless-shell ca-certificates \
 && rm -rf /var/lib/apt/lists/*

FROM ${NODE_IMAGE} AS build
WORKDIR /app
# Chromium comes from apt in the browser image; puppeteer must never download one.
ENV PUPPETEER_SKIP_DOWNLOAD=1
COPY package.json package-lock.json .puppeteerrc.cjs ./
RUN npm ci --no-audit --no-fund
COPY . .
# tsc, then the files the code reads at run time copied beside it, and the dashboard's
# files (dashboard/, no build) into dist/dashboard/ (scripts/copy-assets.mjs); the development
# packages pruned; then the workflow bundle built into node_modules/.cache, so no worker runs
# webpack at its start (it is checked against the files it was built from).
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && node dist/workers/prebuild-workflow-bundle.js

# Each role's node_modules: the packages it never loads removed, and other platforms' native builds.
FROM build AS modules-api
RUN node scripts/role-packages.mjs api --prune
FROM build AS modules-worker-core
RUN node scripts/role-packages.mjs worker-core --prune
FROM build AS modules-worker-cpu
RUN node scripts/role-packages.mjs worker-cpu --prune
FROM build AS modules-worker-network
RUN node scripts/role-packages.mjs worker-network --prune
FROM build AS modules-worker-browser
RUN node scripts/role-packages.mjs worker-browser --prune

# Each role: its system layers, then the compiled service and its own node_modules.
FROM system AS worker-core
COPY --from=build /app/package.json ./
COPY --from=build /app/dist ./dist
COPY --from=modules-worker-core /app/node_modules ./node_modules
USER 1000:1000
CMD ["node", "dist/workers/core.js"]

FROM system AS worker-network
COPY --from=build /app/package.json ./
COPY --from=build /app/dist ./dist
COPY --from=modules-worker-network /app/node_modules ./node_modules
USER 1000:1000
CMD ["node", "dist/workers/network.js"]

FROM system-cpu AS worker-cpu
COPY --from=build /app/package.json ./
COPY --from=build /app/dist ./dist
COPY --from=modules-worker-cpu /app/node_modules ./node_modules
USER 1000:1000
CMD ["node", "dist/workers/cpu.js"]

FROM system-browser AS worker-browser
COPY --from=build /app/package.json ./
COPY --from=build /app/dist ./dist
COPY --from=modules-worker-browser /app/node_modules ./node_modules
USER 1000:1000
CMD ["node", "dist/workers/browser.js"]

# Last, so a build without --target gives the API.
FROM system AS api
ENV PORT=8080
COPY --from=build /app/package.json ./
COPY --from=build /app/dist ./dist
COPY --from=modules-api /app/node_modules ./node_modules
USER 1000:1000
EXPOSE 8080
CMD ["node", "dist/api/server.js"]
