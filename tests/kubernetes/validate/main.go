// validate decodes every object of a rendered manifest (helm template's output, or
// packaging/kubernetes/gotraced.yaml) strictly against the k8s.io/api types: an unknown or
// misspelt field, a duplicate key, a wrong type or an unknown kind is an error, as the API
// server's strict field validation would reject it. It also checks what the DaemonSet
// must hold for gotraced (docs/kubernetes.md): hostPID, the selector matching the pod's
// labels, and a container that is privileged or adds SYS_ADMIN.
//
//	go run . < manifest.yaml
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

type typeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

func newObject(tm typeMeta) (any, error) {
	switch tm.APIVersion + "/" + tm.Kind {
	case "v1/ConfigMap":
		return &corev1.ConfigMap{}, nil
	case "v1/ServiceAccount":
		return &corev1.ServiceAccount{}, nil
	case "v1/Namespace":
		return &corev1.Namespace{}, nil
	case "apps/v1/DaemonSet":
		return &appsv1.DaemonSet{}, nil
	case "rbac.authorization.k8s.io/v1/ClusterRole":
		return &rbacv1.ClusterRole{}, nil
	}
	return nil, fmt.Errorf("unknown kind %s %s", tm.APIVersion, tm.Kind)
}

func checkDaemonSet(ds *appsv1.DaemonSet) error {
	spec := ds.Spec.Template.Spec
	if !spec.HostPID {
		return fmt.Errorf("daemonset %s: hostPID is not set (gotraced attaches to the node's processes)", ds.Name)
	}
	if ds.Spec.Selector == nil {
		return fmt.Errorf("daemonset %s: no selector", ds.Name)
	}
	for k, v := range ds.Spec.Selector.MatchLabels {
		if ds.Spec.Template.Labels[k] != v {
			return fmt.Errorf("daemonset %s: selector %s=%s does not match the pod's labels", ds.Name, k, v)
		}
	}
	if len(spec.Containers) == 0 {
		return fmt.Errorf("daemonset %s: no container", ds.Name)
	}
	for _, c := range spec.Containers {
		sc := c.SecurityContext
		if sc == nil {
			return fmt.Errorf("container %s: no securityContext", c.Name)
		}
		privileged := sc.Privileged != nil && *sc.Privileged
		sysAdmin := false
		if sc.Capabilities != nil {
			for _, cap := range sc.Capabilities.Add {
				sysAdmin = sysAdmin || cap == "SYS_ADMIN"
			}
		}
		if !privileged && !sysAdmin {
			return fmt.Errorf("container %s: neither privileged nor CAP_SYS_ADMIN (uprobes need it)", c.Name)
		}
		if c.ReadinessProbe == nil {
			return fmt.Errorf("container %s: no readiness probe", c.Name)
		}
	}
	return nil
}

// decodeStrict decodes as the API server's strict field validation does: YAML to JSON
// refusing duplicate keys, then sigs.k8s.io/json (case-sensitive field names, unlike
// encoding/json: "hostPid" is not hostPID) refusing unknown and duplicate fields.
func decodeStrict(doc []byte, obj any) error {
	j, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return err
	}
	strict, err := kjson.UnmarshalStrict(j, obj, kjson.DisallowDuplicateFields, kjson.DisallowUnknownFields)
	if err != nil {
		return err
	}
	if len(strict) > 0 {
		return fmt.Errorf("%v", strict)
	}
	return nil
}

// documents splits a YAML stream at its "---" lines.
func documents(r io.Reader) ([][]byte, error) {
	var docs [][]byte
	var cur bytes.Buffer
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	flush := func() {
		if strings.TrimSpace(cur.String()) != "" {
			docs = append(docs, append([]byte(nil), cur.Bytes()...))
		}
		cur.Reset()
	}
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "---") {
			flush()
			continue
		}
		cur.WriteString(line)
		cur.WriteByte('\n')
	}
	flush()
	return docs, sc.Err()
}

func main() {
	docs, err := documents(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "validate:", err)
		os.Exit(1)
	}
	n, daemonsets := 0, 0
	for i, doc := range docs {
		var tm typeMeta
		if err := yaml.Unmarshal(doc, &tm); err != nil {
			fmt.Fprintf(os.Stderr, "validate: document %d: %v\n", i+1, err)
			os.Exit(1)
		}
		if tm.Kind == "" { // comments only
			continue
		}
		obj, err := newObject(tm)
		if err == nil {
			err = decodeStrict(doc, obj)
		}
		if err == nil {
			if ds, ok := obj.(*appsv1.DaemonSet); ok {
				daemonsets++
				err = checkDaemonSet(ds)
			}
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "validate: document %d (%s): %v\n", i+1, tm.Kind, err)
			os.Exit(1)
		}
		n++
	}
	if daemonsets != 1 {
		fmt.Fprintf(os.Stderr, "validate: %d DaemonSets, want 1\n", daemonsets)
		os.Exit(1)
	}
	fmt.Printf("validate: %d objects decoded strictly against k8s.io/api\n", n)
}
