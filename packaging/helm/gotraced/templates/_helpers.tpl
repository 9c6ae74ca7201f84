{{- define "gotraced.name" -}}{{ .Release.Name | trunc 63 | trimSuffix "-" }}{{- end -}}
{{- define "gotraced.labels" -}}
app.kubernetes.io/name: gotraced
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}
{{- define "gotraced.selector" -}}
app.kubernetes.io/name: gotraced
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
