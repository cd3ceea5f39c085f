# The service's image: the API (default command) and every worker pool
# (`node dist/workers/<core|cpu|network|browser>.js`), compiled to dist/.

FROM node:24-bookworm-slim AS build
WORKDIR /app
# Chromium comes from apt in the runtime image; puppeteer must never download one.
ENV PUPPETEER_SKIP_DOWNLOAD=1
COPY package.json package-lock.json .puppeteerrc.cjs ./
RUN npm ci --no-audit --no-fund
COPY . .
# tsc, then the schemas and docs the code reads at run time copied beside it, and the dashboard's
# files (dashboard/, no build) into dist/dashboard/ (scripts/copy-assets.mjs).
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund

FROM node:24-bookworm-slim
# Chromium's headless shell (browser pool), LibreOffice driven over UNO (cpu pool), fonts for every script.
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      chromium-headless-shell libreoffice-writer-nogui python3-uno \
      fonts-dejavu-core fonts-liberation fonts-noto-cjk fonts-noto-color-emoji ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production \
    PUPPETEER_SKIP_DOWNLOAD=1 \
    PORT=8080
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The blob volume's mount point, owned by the app's user: a new named volume takes this
# ownership, where a missing directory would be created root's (docker-compose.yml).
RUN mkdir -p /data/blobs && chown node:node /data/blobs
# Unprivileged; LibreOffice and Chromium keep their profiles under the user's home.
USER node
EXPOSE 8080
CMD ["node", "dist/api/server.js"]
