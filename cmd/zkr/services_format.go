package main

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"
)

// writeServices prints the services under a base path as a table.
func writeServices(w io.Writer, v *ServicesView) {
	fmt.Fprintf(w, "%s  %d %s\n", v.Base, len(v.Services), plural(len(v.Services), "service", "services"))
	if len(v.Services) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVICE\tINSTANCES\tENABLED\tUNREADABLE")
	for _, s := range v.Services {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\n", s.Name, s.Instances, s.Enabled, s.Unreadable)
	}
	_ = tw.Flush()
}

// writeService prints one service's instances as a table, then the nodes
// whose data is no instance.
func writeService(w io.Writer, v *ServiceView) {
	s := summarize(v.Name, v.Instances)
	fmt.Fprintf(w, "%s  service  %d %s, %d enabled", join(v.Base, v.Name), s.Instances,
		plural(s.Instances, "instance", "instances"), s.Enabled)
	if s.Unreadable > 0 {
		fmt.Fprintf(w, ", %d unreadable", s.Unreadable)
	}
	fmt.Fprintln(w)
	if s.Instances > 0 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tADDRESS\tPORT\tSSL\tTYPE\tENABLED\tREGISTERED\tSESSION\tURI")
		for _, i := range v.Instances {
			if i.Error != "" {
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", i.ID, dash(i.Address), port(i.Port),
				port(i.SSLPort), dash(i.ServiceType), yesNo(i.Enabled), i.Registered.Format(time.RFC3339),
				i.Session, dash(i.URI))
		}
		_ = tw.Flush()
	}
	for _, i := range v.Instances {
		if i.Error == "" {
			continue
		}
		fmt.Fprintf(w, "unreadable %s (session %s): %s; data %s\n", i.Node, i.Session, i.Error,
			shortData(i.Data, i.DataBytes))
	}
}

// port renders a nullable port.
func port(p *int) string {
	if p == nil {
		return "-"
	}
	return strconv.Itoa(*p)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
