{{/*
Names and labels.
*/}}
{{- define "tally.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "tally.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "tally.selectorLabels" -}}
app.kubernetes.io/name: {{ include "tally.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "tally.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "tally.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/component: mcp-idempotency
{{- end }}

{{- define "tally.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/* Where the sidecar's files live inside the pod. */}}
{{- define "tally.paths.config" -}}/etc/tally/config{{- end }}
{{- define "tally.paths.hmac" -}}/etc/tally/hmac{{- end }}
{{- define "tally.paths.admin" -}}/etc/tally/admin{{- end }}
{{- define "tally.paths.auditKey" -}}/etc/tally/audit-key{{- end }}
{{- define "tally.paths.data" -}}/var/lib/tally{{- end }}

{{/*
Refuses values that would deploy something unsafe; every message names the value.
*/}}
{{- define "tally.validate" -}}
{{- $kind := .Values.store.kind }}
{{- if not (has $kind (list "journal" "postgres" "memory")) }}
{{- fail (printf "store.kind: %v (expected: journal, postgres or memory)" $kind) }}
{{- end }}
{{- if and (ne $kind "postgres") (gt (int .Values.deployment.replicas) 1) }}
{{- fail (printf "deployment.replicas: %v with store.kind %s (expected: 1; each pod would keep its own store and a retry that reached another replica would run again; use store.kind postgres for several)" .Values.deployment.replicas $kind) }}
{{- end }}
{{- if eq $kind "journal" }}
{{- if not (has .Values.store.journal.volume (list "persistentVolumeClaim" "emptyDir")) }}
{{- fail (printf "store.journal.volume: %v (expected: persistentVolumeClaim or emptyDir)" .Values.store.journal.volume) }}
{{- end }}
{{- end }}
{{- if and (eq $kind "postgres") (not .Values.store.postgres.urlSecret.name) }}
{{- fail "store.postgres.urlSecret.name: empty (expected: the Secret holding the store URL postgres://USER@HOST:PORT/DB)" }}
{{- end }}
{{- if not .Values.hmac.secret.name }}
{{- fail "hmac.secret.name: empty (expected: the Secret holding the HMAC key file; make one with: tally key generate hmac.keys)" }}
{{- end }}
{{- if not .Values.admin.tokenSecret.name }}
{{- fail "admin.tokenSecret.name: empty (expected: the Secret holding the admin token; the admin port listens beyond loopback for the probes, so Tally requires one)" }}
{{- end }}
{{- if and .Values.audit.signingKeySecret.name (ne $kind "journal") }}
{{- fail (printf "audit.signingKeySecret.name: %s with store.kind %s (expected: store.kind journal; the audit journals live beside a journal store)" .Values.audit.signingKeySecret.name $kind) }}
{{- end }}
{{- if eq (int .Values.sidecar.port) (int .Values.upstream.port) }}
{{- fail (printf "sidecar.port: %v is upstream.port too (expected: Tally and the MCP server on different ports)" .Values.sidecar.port) }}
{{- end }}
{{- if eq (int .Values.sidecar.port) (int .Values.admin.port) }}
{{- fail (printf "admin.port: %v is sidecar.port too (expected: two different ports)" .Values.admin.port) }}
{{- end }}
{{- $cfg := .Values.config | default dict }}
{{- range $key := list "store" "hmac" "admin" }}
{{- if hasKey $cfg $key }}
{{- fail (printf "config.%s: set by the chart (expected: the chart's values %s.* instead)" $key $key) }}
{{- end }}
{{- end }}
{{- range $section, $keys := dict "upstream" (list "url") "sidecar" (list "listen" "drainTimeout") }}
{{- $given := index $cfg $section | default dict }}
{{- range $k := $keys }}
{{- if hasKey $given $k }}
{{- fail (printf "config.%s.%s: set by the chart (expected: leave it out; see values.yaml)" $section $k) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{/*
tally.yaml: the user's config with the keys the chart owns.
*/}}
{{- define "tally.configFile" -}}
{{- $managed := dict
  "version" 1
  "upstream" (dict "url" (printf "http://127.0.0.1:%v%s" .Values.upstream.port .Values.upstream.path))
  "sidecar" (dict "listen" (printf "0.0.0.0:%v" .Values.sidecar.port) "drainTimeout" .Values.sidecar.drainTimeout)
  "admin" (dict "listen" (printf "0.0.0.0:%v" .Values.admin.port) "tokenFile" (printf "%s/token" (include "tally.paths.admin" .)))
  "hmac" (dict "keyFile" (printf "%s/hmac.keys" (include "tally.paths.hmac" .)))
}}
{{- if eq .Values.store.kind "journal" }}
{{- $_ := set $managed "store" (printf "journal:%s/journal" (include "tally.paths.data" .)) }}
{{- else if eq .Values.store.kind "memory" }}
{{- $_ := set $managed "store" "memory" }}
{{- end }}
{{- mergeOverwrite (deepCopy (.Values.config | default dict)) $managed | toYaml }}
{{- end }}

{{- define "tally.configMapName" -}}
{{- default (printf "%s-config" (include "tally.fullname" .)) .Values.existingConfigMap }}
{{- end }}

{{- define "tally.claimName" -}}
{{- default (printf "%s-data" (include "tally.fullname" .)) .Values.store.journal.persistentVolumeClaim.existingClaim }}
{{- end }}

{{- define "tally.securityContext" -}}
{{- toYaml .Values.sidecar.securityContext }}
{{- end }}

{{/*
The init container that installs the audit signing key (journal store with
audit.signingKeySecret only). Include it under initContainers: in your pod.
*/}}
{{- define "tally.initContainers" -}}
{{- include "tally.validate" . }}
{{- if and (eq .Values.store.kind "journal") .Values.audit.signingKeySecret.name }}
- name: {{ .Values.sidecar.name }}-audit-key
  image: {{ include "tally.image" . }}
  imagePullPolicy: {{ .Values.image.pullPolicy }}
  args:
    - audit
    - install-key
    - {{ include "tally.paths.auditKey" . }}/audit-signing.key
    - {{ include "tally.paths.data" . }}/audit
  securityContext:
    {{- include "tally.securityContext" . | nindent 4 }}
  resources:
    {{- toYaml .Values.sidecar.resources | nindent 4 }}
  volumeMounts:
    - name: tally-data
      mountPath: {{ include "tally.paths.data" . }}
    - name: tally-audit-key
      mountPath: {{ include "tally.paths.auditKey" . }}
      readOnly: true
    - name: tally-tmp
      mountPath: /tmp
{{- end }}
{{- end }}

{{/*
The OTEL_* variables of the Tally container, from the otel values (each only when set).
*/}}
{{- define "tally.otelEnv" -}}
{{- with .Values.otel }}
{{- if .endpoint }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ .endpoint | quote }}
- name: OTEL_SERVICE_NAME
  value: {{ .serviceName | default (include "tally.fullname" $) | quote }}
{{- else if .serviceName }}
- name: OTEL_SERVICE_NAME
  value: {{ .serviceName | quote }}
{{- end }}
{{- if .headersSecret.name }}
- name: OTEL_EXPORTER_OTLP_HEADERS
  valueFrom:
    secretKeyRef:
      name: {{ .headersSecret.name }}
      key: {{ .headersSecret.key }}
{{- end }}
{{- if .sampler }}
- name: OTEL_TRACES_SAMPLER
  value: {{ .sampler | quote }}
{{- end }}
{{- if .samplerArg }}
- name: OTEL_TRACES_SAMPLER_ARG
  value: {{ .samplerArg | quote }}
{{- end }}
{{- if .resourceAttributes }}
- name: OTEL_RESOURCE_ATTRIBUTES
  value: {{ .resourceAttributes | quote }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The Tally sidecar container. Include it under containers: in your pod, beside your server.
*/}}
{{- define "tally.container" -}}
{{- include "tally.validate" . -}}
- name: {{ .Values.sidecar.name }}
  image: {{ include "tally.image" . }}
  imagePullPolicy: {{ .Values.image.pullPolicy }}
  args:
    - serve
    - --config
    - {{ include "tally.paths.config" . }}/tally.yaml
  ports:
    - name: tally-mcp
      containerPort: {{ .Values.sidecar.port }}
      protocol: TCP
    - name: admin
      containerPort: {{ .Values.admin.port }}
      protocol: TCP
  env:
    - name: JAVA_TOOL_OPTIONS
      value: {{ .Values.sidecar.javaOptions | quote }}
    {{- if eq .Values.store.kind "postgres" }}
    - name: TALLY_STORE
      valueFrom:
        secretKeyRef:
          name: {{ .Values.store.postgres.urlSecret.name }}
          key: {{ .Values.store.postgres.urlSecret.key }}
    {{- if .Values.store.postgres.passwordSecret.name }}
    - name: PGPASSWORD
      valueFrom:
        secretKeyRef:
          name: {{ .Values.store.postgres.passwordSecret.name }}
          key: {{ .Values.store.postgres.passwordSecret.key }}
    {{- end }}
    {{- end }}
    {{- include "tally.otelEnv" . | nindent 4 }}
    {{- with .Values.sidecar.extraEnv }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- with .Values.sidecar.startupProbe }}
  startupProbe:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.sidecar.readinessProbe }}
  readinessProbe:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.sidecar.livenessProbe }}
  livenessProbe:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- if gt (int .Values.sidecar.preStopSleepSeconds) 0 }}
  lifecycle:
    preStop:
      sleep:
        seconds: {{ .Values.sidecar.preStopSleepSeconds }}
  {{- end }}
  resources:
    {{- toYaml .Values.sidecar.resources | nindent 4 }}
  securityContext:
    {{- include "tally.securityContext" . | nindent 4 }}
  volumeMounts:
    - name: tally-config
      mountPath: {{ include "tally.paths.config" . }}
      readOnly: true
    - name: tally-hmac
      mountPath: {{ include "tally.paths.hmac" . }}
      readOnly: true
    - name: tally-admin-token
      mountPath: {{ include "tally.paths.admin" . }}
      readOnly: true
    {{- if eq .Values.store.kind "journal" }}
    - name: tally-data
      mountPath: {{ include "tally.paths.data" . }}
    {{- end }}
    - name: tally-tmp
      mountPath: /tmp
    {{- with .Values.sidecar.extraVolumeMounts }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
{{- end }}

{{/*
The volumes the sidecar (and its init container) mount. Include them under volumes: in your pod.
*/}}
{{- define "tally.volumes" -}}
{{- include "tally.validate" . -}}
- name: tally-config
  configMap:
    name: {{ include "tally.configMapName" . }}
    items:
      - key: tally.yaml
        path: tally.yaml
- name: tally-hmac
  secret:
    secretName: {{ .Values.hmac.secret.name }}
    defaultMode: 0440
    items:
      - key: {{ .Values.hmac.secret.key }}
        path: hmac.keys
- name: tally-admin-token
  secret:
    secretName: {{ .Values.admin.tokenSecret.name }}
    defaultMode: 0440
    items:
      - key: {{ .Values.admin.tokenSecret.key }}
        path: token
{{- if eq .Values.store.kind "journal" }}
{{- if .Values.audit.signingKeySecret.name }}
- name: tally-audit-key
  secret:
    secretName: {{ .Values.audit.signingKeySecret.name }}
    defaultMode: 0440
    items:
      - key: {{ .Values.audit.signingKeySecret.key }}
        path: audit-signing.key
{{- end }}
{{- if eq .Values.store.journal.volume "persistentVolumeClaim" }}
- name: tally-data
  persistentVolumeClaim:
    claimName: {{ include "tally.claimName" . }}
{{- else }}
- name: tally-data
  emptyDir:
    {{- with .Values.store.journal.emptyDir.sizeLimit }}
    sizeLimit: {{ . }}
    {{- end }}
{{- end }}
{{- end }}
- name: tally-tmp
  emptyDir:
    sizeLimit: 64Mi
{{- end }}
