# Herald Discord bot. The game database lives on the mounted volume /data.
#   docker build -t herald .
#   docker run --rm -e DISCORD_TOKEN=... herald herald sync      # register the slash commands (once)
#   docker run -d --name herald --restart unless-stopped -e DISCORD_TOKEN=... -v herald-data:/data herald
# `docker stop` sends SIGTERM: the bot closes the database cleanly. A wrong token or no network
# ends the container with one line in `docker logs` and exit code 1.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    HERALD_DB=/data/herald.db \
    HERALD_TILE_CACHE=/data/tiles

WORKDIR /app
COPY pyproject.toml README.md ./
COPY engine ./engine
COPY bot ./bot
COPY renders ./renders
RUN pip install --no-cache-dir . \
    && useradd --create-home --uid 10001 herald \
    && mkdir -p /data && chown herald /data

USER herald
VOLUME ["/data"]
STOPSIGNAL SIGTERM
CMD ["herald", "bot"]
