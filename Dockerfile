# token-monitor: one image for every role (api, worker, scanner, scheduler, all) and the CLI.
# TypeScript runs through tsx (a runtime dependency); only the web app is built, in a stage of
# its own (Vite and Preact are dev dependencies), and the runtime image keeps its bundle alone.
FROM node:20-bookworm-slim AS web
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY web ./web
COPY scripts/web-build.mjs ./scripts/web-build.mjs
# The build fails past the first-load budget, as it does on a developer's machine.
RUN node scripts/web-build.mjs --force

FROM node:20-bookworm-slim

ENV NODE_ENV=production
WORKDIR /app

# Dependencies first, so that source edits reuse this layer.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

COPY tsconfig.json drizzle.config.ts ./
COPY bin ./bin
COPY src ./src
COPY workers ./workers
COPY api ./api
COPY db ./db
COPY app ./app
COPY contracts ./contracts
COPY infra ./infra
COPY --from=web /app/web/dist ./web/dist

# Sources stay root-owned and read-only to the service; DATA_DIR (.data) is the one place
# it may write (embedded fallbacks only; with DATABASE_URL and REDIS_URL set it stays empty).
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node

EXPOSE 3000
# No HEALTHCHECK here: the same image runs roles without an HTTP server (worker, scanner,
# scheduler); docker-compose.yml checks /health on the api service only.
ENTRYPOINT ["node", "bin/token-monitor.mjs"]
CMD ["start", "--role", "all"]
