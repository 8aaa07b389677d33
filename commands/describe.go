package commands

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"

	"github.com/mcpc-dev/mcpc/client"
	"github.com/mcpc-dev/mcpc/format"
	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/rawmsg"
	"github.com/mcpc-dev/mcpc/internal/shellwords"
)

// describeKinds are the lists a feature is described from, with how the
// text renderer reads one of their items.
var describeKinds = map[string]format.Kind{
	"tools":     format.KindTool,
	"prompts":   format.KindPrompt,
	"templates": format.KindTemplate,
}

// describe shows one tool, prompt or resource template: in text, what a
// person needs to call it; in JSON, the definition exactly as the server
// sent it.
func (st *state) describe(ctx context.Context, g *globals, o listOptions) error {
	sess, closeFn, err := st.connector(g).Open(ctx, o.server)
	if err != nil {
		return err
	}
	defer closeFn()
	k, _ := client.ListKindOf(o.kind)
	raw, err := sess.ListRaw(ctx, o.kind)
	if err != nil {
		return err
	}
	// The list is read where it lies, one item at a time: a copy of it,
	// or an array of 200,000 results, would cost more than the list.
	var found []byte
	items := rawmsg.View(raw).Get(gjson.Escape(k.Key))
	items.ForEach(func(_, item gjson.Result) bool {
		if item.Get("name").Str == o.name || o.kind == "templates" && item.Get("uriTemplate").Str == o.name {
			found = []byte(item.Raw)
		}
		return found == nil
	})
	if found == nil {
		if o.kind == "tools" {
			// FindTool says what there is, and what was likely meant.
			var names []*mcp.Tool
			items.ForEach(func(_, item gjson.Result) bool {
				names = append(names, &mcp.Tool{Name: item.Get("name").String()})
				return true
			})
			_, err := sess.FindTool(names, o.name)
			return err
		}
		return fail.New(fail.Rejected, "list them with: "+sess.ListHint()+" "+o.kind, "%s has no %s named %q", sess.label(), k.Item, o.name)
	}
	return st.runIO(g).printRawWith(describeKinds[o.kind], found, func(fo *format.Options) {
		fo.Example = exampleServer(g, o.server)
	})
}

// exampleServer spells the server the way this command line did, for the
// example line of a description.
func exampleServer(g *globals, server string) format.Example {
	switch {
	case g.adhoc.Stdio != "":
		return format.Example{Server: "--stdio " + shellwords.Quote(g.adhoc.Stdio)}
	case len(g.adhoc.Argv) > 0:
		return format.Example{Tail: "-- " + shellwords.Join(g.adhoc.Argv)}
	}
	return format.Example{Server: shellwords.Quote(server)}
}
