// Command flyte-pod prints the pod Flyte's backend would create for one task: it reads a
// request (JSON on stdin) with the task template as flytekit serializes it, the default
// PodTemplate and the k8s plugin config, and runs flyteplugins' own flytek8s.ToK8sPodSpec
// (BuildRawPod, the resource customization, UpdatePod, the default PodTemplate merge).
//
// It is the backend oracle of podtemplate's tests (podtemplate.testing.flyte_oracle); the
// binary is built into a cache outside the repository and never committed.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/flyteorg/flyteidl/gen/pb-go/flyteidl/core"
	pluginsCore "github.com/flyteorg/flyteplugins/go/tasks/pluginmachinery/core"
	"github.com/flyteorg/flyteplugins/go/tasks/pluginmachinery/flytek8s"
	"github.com/flyteorg/flyteplugins/go/tasks/pluginmachinery/flytek8s/config"
	"github.com/flyteorg/flyteplugins/go/tasks/pluginmachinery/io"
	"github.com/flyteorg/flytestdlib/storage"
	"github.com/golang/protobuf/jsonpb"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type request struct {
	TaskTemplate      json.RawMessage          `json:"taskTemplate"`
	Inputs            json.RawMessage          `json:"inputs"`
	PodTemplates      []v1.PodTemplate         `json:"podTemplates"`
	Config            config.K8sPluginConfig   `json:"config"`
	PlatformResources *v1.ResourceRequirements `json:"platformResources"`
	Overrides         *v1.ResourceRequirements `json:"overrideResources"`
	Interruptible     bool                     `json:"interruptible"`
	Namespace         string                   `json:"namespace"`
	ServiceAccount    string                   `json:"serviceAccount"`
	GeneratedName     string                   `json:"generatedName"`
}

type answer struct {
	Metadata             *metav1.ObjectMeta `json:"metadata"`
	Spec                 *v1.PodSpec        `json:"spec"`
	PrimaryContainerName string             `json:"primaryContainerName"`
}

// The execution context: only what ToK8sPodSpec reads is answered; every other method of
// the embedded interfaces is nil and would panic, which a test would show.
type taskContext struct {
	pluginsCore.TaskExecutionContext
	task   *core.TaskTemplate
	inputs *core.LiteralMap
	meta   metadata
}

func (c taskContext) TaskReader() pluginsCore.TaskReader                       { return reader{task: c.task} }
func (c taskContext) TaskExecutionMetadata() pluginsCore.TaskExecutionMetadata { return c.meta }
func (c taskContext) InputReader() io.InputReader                              { return inputs{values: c.inputs} }
func (c taskContext) OutputWriter() io.OutputWriter                            { return outputs{} }

type reader struct {
	pluginsCore.TaskReader
	task *core.TaskTemplate
}

func (r reader) Read(context.Context) (*core.TaskTemplate, error) { return r.task, nil }
func (r reader) Path(context.Context) (storage.DataReference, error) {
	return "s3://bucket/task.pb", nil
}

type inputs struct {
	io.InputReader
	values *core.LiteralMap
}

func (i inputs) GetInputPrefixPath() storage.DataReference     { return "s3://bucket/inputs" }
func (i inputs) GetInputPath() storage.DataReference           { return "s3://bucket/inputs/inputs.pb" }
func (i inputs) Get(context.Context) (*core.LiteralMap, error) { return i.values, nil }

type outputs struct{ io.OutputWriter }

func (outputs) GetOutputPrefixPath() storage.DataReference          { return "s3://bucket/outputs" }
func (outputs) GetRawOutputPrefix() storage.DataReference           { return "s3://bucket/raw" }
func (outputs) GetCheckpointPrefix() storage.DataReference          { return "s3://bucket/checkpoint" }
func (outputs) GetPreviousCheckpointsPrefix() storage.DataReference { return "" }

type metadata struct {
	pluginsCore.TaskExecutionMetadata
	request *request
}

func (m metadata) GetTaskExecutionID() pluginsCore.TaskExecutionID {
	return executionID{name: m.request.GeneratedName}
}
func (m metadata) GetNamespace() string                    { return m.request.Namespace }
func (m metadata) GetOverrides() pluginsCore.TaskOverrides { return overrides{m.request.Overrides} }
func (m metadata) GetK8sServiceAccount() string            { return m.request.ServiceAccount }
func (m metadata) IsInterruptible() bool                   { return m.request.Interruptible }
func (m metadata) GetPlatformResources() *v1.ResourceRequirements {
	return m.request.PlatformResources
}
func (m metadata) GetEnvironmentVariables() map[string]string { return nil }

type overrides struct{ resources *v1.ResourceRequirements }

func (o overrides) GetResources() *v1.ResourceRequirements {
	if o.resources == nil {
		return &v1.ResourceRequirements{}
	}
	return o.resources
}
func (o overrides) GetConfig() *v1.ConfigMap { return nil }

type executionID struct {
	pluginsCore.TaskExecutionID
	name string
}

func (e executionID) GetGeneratedName() string            { return e.name }
func (e executionID) GetID() core.TaskExecutionIdentifier { return core.TaskExecutionIdentifier{} }

func run() error {
	var req request
	decoder := json.NewDecoder(os.Stdin)
	decoder.DisallowUnknownFields()
	if err := decoder.Decode(&req); err != nil {
		return fmt.Errorf("the request: %w", err)
	}
	if req.GeneratedName == "" {
		req.GeneratedName = "a0"
	}
	// flytekit's newer fields (extendedResources, metadata.metadata...) are unknown to
	// this flyteidl: the backend of this version ignores them as well.
	lenient := jsonpb.Unmarshaler{AllowUnknownFields: true}
	task := &core.TaskTemplate{}
	if err := lenient.Unmarshal(strings.NewReader(string(req.TaskTemplate)), task); err != nil {
		return fmt.Errorf("the task template: %w", err)
	}
	var literals *core.LiteralMap
	if len(req.Inputs) > 0 && string(req.Inputs) != "null" {
		literals = &core.LiteralMap{}
		if err := lenient.Unmarshal(strings.NewReader(string(req.Inputs)), literals); err != nil {
			return fmt.Errorf("the inputs: %w", err)
		}
	}
	if req.Config.GpuResourceName == "" {
		req.Config.GpuResourceName = flytek8s.ResourceNvidiaGPU
	}
	if err := config.SetK8sPluginConfig(&req.Config); err != nil {
		return err
	}
	for i := range req.PodTemplates {
		flytek8s.DefaultPodTemplateStore.Store(&req.PodTemplates[i])
	}
	tCtx := taskContext{task: task, inputs: literals, meta: metadata{request: &req}}
	spec, meta, primary, err := flytek8s.ToK8sPodSpec(context.Background(), tCtx)
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(answer{Metadata: meta, Spec: spec, PrimaryContainerName: primary})
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "flyte-pod:", err)
		os.Exit(1)
	}
}
