# The qrelsmith image: one image for the web process and the Celery worker.
# Front-end packages come from the npm registry at build time (no CDN at run time).
FROM node:20-slim AS static
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 DJANGO_SETTINGS_MODULE=config.settings.prod
WORKDIR /app
COPY pyproject.toml README.md ./
RUN pip install --no-cache-dir .
COPY . .
COPY --from=static /app/node_modules ./node_modules
# collectstatic imports the prod settings, which refuse to load without real-looking values;
# these exist only for this build step and are not kept in the image's environment.
RUN SECRET_KEY="collectstatic-only-$(python -c 'import secrets; print(secrets.token_urlsafe(48))')" \
    DATABASE_URL=postgres://build/build REDIS_URL=redis://build:6379/0 \
    python manage.py collectstatic --noinput
RUN useradd --create-home qrelsmith && chown -R qrelsmith /app
USER qrelsmith
EXPOSE 8000
CMD ["gunicorn", "config.wsgi", "--bind", "0.0.0.0:8000", "--workers", "3"]
