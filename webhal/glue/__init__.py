"""Web builds: pipelines as static libraries linked by emcc with generated glue (jinja2
templates in templates/), pages to run them, and running those pages in headless Chromium."""
