# The service's images, one per role, from one build (docker build --target <role>):
#   api             the HTTP API (and the dashboard it serves)
#   worker-core     ledger, webhooks, mail, batches, the sweeper
#   worker-cpu      hashing, images, QR, the upscaling model, LibreOffice for word-to-pdf
#   worker-network  the network probes and page readers
#   worker-browser  Chromium's headless shell for captures
# Each holds only what its role runs: its system packages, and of node_modules only the packages
# its modules load (scripts/role-packages.mjs). test/deploy/images.test.ts reads these stages.

FROM node:24-bookworm-slim AS build
WORKDIR /app
# Chromium comes from apt in the browser image; puppeteer must never download one.
ENV PUPPETEER_SKIP_DOWNLOAD=1
COPY package.json package-lock.json .puppeteerrc.cjs ./
RUN npm ci --no-audit --no-fund
COPY . .
# tsc, then the schemas and docs the code reads at run time copied beside it, and the dashboard's
# files (dashboard/, no build) into dist/dashboard/ (scripts/copy-assets.mjs); the development
# packages pruned; then the workflow bundle built into node_modules/.cache, so no worker runs
# webpack at its start (it is checked against the files it was built from).
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && node dist/workers/prebuild-workflow-bundle.js

# Each role's node_modules: the packages it never loads removed.
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

# What every role shares: Node, the compiled service, an unprivileged user (numeric, so an
# orchestrator can check it is not root).
FROM node:24-bookworm-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    PUPPETEER_SKIP_DOWNLOAD=1
COPY --from=build /app/package.json ./
COPY --from=build /app/dist ./dist
# The blob volume's mount point (big outputs: written by the workers, read by the API), owned by the
# app's user: a new named volume takes this ownership, where a missing directory would be root's.
RUN mkdir -p /data/blobs && chown 1000:1000 /data/blobs

FROM runtime AS worker-core
COPY --from=modules-worker-core /app/node_modules ./node_modules
USER 1000:1000
CMD ["node", "dist/workers/core.js"]

FROM runtime AS worker-network
COPY --from=modules-worker-network /app/node_modules ./node_modules
USER 1000:1000
CMD ["node", "dist/workers/network.js"]

# Fonts for every script, for the roles that draw text: documents (cpu) and pages (browser).
FROM runtime AS runtime-fonts
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      fonts-dejavu-core fonts-liberation fonts-noto-cjk fonts-noto-color-emoji \
 && rm -rf /var/lib/apt/lists/*

# LibreOffice driven over UNO (word-to-pdf). LibreOffice keeps its profiles under the user's home.
FROM runtime-fonts AS worker-cpu
RUN apt-get update \
 && apt-get install -y --no-install-recommends libreoffice-writer-nogui python3-uno \
 && rm -rf /var/lib/apt/lists/*
COPY --from=modules-worker-cpu /app/node_modules ./node_modules
USER 1000:1000
CMD ["node", "dist/workers/cpu.js"]

# Chromium's headless shell; CA certificates for HTTPS pages.
FROM runtime-fonts AS worker-browser
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium-headless-shell ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY --from=modules-worker-browser /app/node_modules ./node_modules
USER 1000:1000
CMD ["node", "dist/workers/browser.js"]

# Last, so a build without --target gives the API.
FROM runtime AS api
ENV PORT=8080
COPY --from=modules-api /app/node_modules ./node_modules
USER 1000:1000
EXPOSE 8080
CMD ["node", "dist/api/server.js"]
