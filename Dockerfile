# Herald Discord bot. The game database lives on the mounted volume /data.
#   docker build -t herald .
#   docker run -e DISCORD_TOKEN=... -v herald-data:/data herald
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    HERALD_DB=/data/herald.db

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
CMD ["herald", "bot"]
