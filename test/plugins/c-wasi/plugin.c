// A clawhive tool in C: an Extism plugin built for WASI (wasip1) with Debian's clang, lld and
// wasi-libc against the Extism C PDK header. Files arrive through WASI (fopen on the run's
// mounts), requests through Extism's http_request, settings through config_get, and printf
// goes to the run's log; clawhive's policy decides each of them.
#define EXTISM_IMPLEMENTATION
#include "extism-pdk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char DESCRIBE[] =
    "{\"tools\":["
    "{\"name\":\"read_note\",\"description\":\"Read a note from the mount\","
    "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}},\"required\":[\"path\"]}},"
    "{\"name\":\"fetch\",\"description\":\"GET a URL\","
    "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"url\":{\"type\":\"string\"}},\"required\":[\"url\"]}},"
    "{\"name\":\"greet\",\"description\":\"Greet with the configured greeting\","
    "\"inputSchema\":{\"type\":\"object\"}}]}";

int32_t EXTISM_EXPORTED_FUNCTION(describe) {
  extism_output_set_from_handle(extism_alloc_buf_from_sz(DESCRIBE), 0, sizeof DESCRIBE - 1);
  return 0;
}

// The string value of "key" in the input JSON, unescaped only of nothing: enough for a sample.
static char *string_arg(const char *json, const char *key) {
  char pattern[64];
  snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
  const char *at = strstr(json, pattern);
  if (!at) return NULL;
  at += strlen(pattern);
  const char *end = strchr(at, '"');
  if (!end) return NULL;
  char *out = malloc(end - at + 1);
  memcpy(out, at, end - at);
  out[end - at] = 0;
  return out;
}

// Wraps `text` as an MCP tool result (text without quotes or backslashes, for brevity).
static int32_t reply(const char *text, int is_error) {
  size_t n = strlen(text) + 96;
  char *out = malloc(n);
  for (char *p = (char *)text; *p; p++) if (*p == '"' || *p == '\\' || *p == '\n') *p = ' ';
  int len = snprintf(out, n, "{\"content\":[{\"type\":\"text\",\"text\":\"%s\"}],\"isError\":%s}", text, is_error ? "true" : "false");
  extism_output_set_from_handle(extism_alloc_buf(out, len), 0, len);
  free(out);
  return 0;
}

static int32_t read_note(const char *input) {
  char *path = string_arg(input, "path");
  if (!path) return reply("path is required", 1);
  FILE *file = fopen(path, "r");
  free(path);
  if (!file) return reply("cannot open the note (refused or missing)", 1);
  char text[4096];
  size_t n = fread(text, 1, sizeof text - 1, file);
  text[n] = 0;
  fclose(file);
  return reply(text, 0);
}

static int32_t fetch(const char *input) {
  char *url = string_arg(input, "url");
  if (!url) return reply("url is required", 1);
  char request[2048];
  snprintf(request, sizeof request, "{\"url\":\"%s\",\"method\":\"GET\"}", url);
  free(url);
  ExtismHandle response = extism_http_request(extism_alloc_buf_from_sz(request), 0);
  uint64_t length = extism_length(response);
  char *body = malloc(length + 1);
  extism_load_from_handle(response, 0, body, length);
  body[length] = 0;
  char status[4096];
  snprintf(status, sizeof status, "%d %s", extism_http_status_code(), body);
  free(body);
  return reply(status, 0);
}

static int32_t greet(void) {
  ExtismHandle key = extism_alloc_buf_from_sz("greeting");
  ExtismHandle value = extism_config_get(key);
  char greeting[256] = "hello";
  if (value) {
    uint64_t n = extism_length(value);
    if (n > sizeof greeting - 1) n = sizeof greeting - 1;
    extism_load_from_handle(value, 0, greeting, n);
    greeting[n] = 0;
  }
  printf("greeting with %s\n", greeting);
  fflush(stdout);
  return reply(greeting, 0);
}

int32_t EXTISM_EXPORTED_FUNCTION(call) {
  uint64_t length = extism_input_length();
  char *input = malloc(length + 1);
  extism_load_input(0, input, length);
  input[length] = 0;
  int32_t result;
  if (strstr(input, "\"name\":\"read_note\"")) result = read_note(input);
  else if (strstr(input, "\"name\":\"fetch\"")) result = fetch(input);
  else if (strstr(input, "\"name\":\"greet\"")) result = greet();
  else result = reply("no such tool", 1);
  free(input);
  return result;
}
