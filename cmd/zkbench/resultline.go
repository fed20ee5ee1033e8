package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// resultLine is one "recipe=NAME key=value ..." line that a Java bench
// printed. Its numbers are read with num and ms; a field that is missing or
// not a number reads as 0 and is remembered, and err reports them all.
type resultLine struct {
	text   string
	fields map[string]string
	errs   []error
}

// findResultLine returns the last line of out that starts "recipe=NAME ",
// split into its fields, or false when there is none.
func findResultLine(out, recipe string) (*resultLine, bool) {
	var text string
	for l := range strings.SplitSeq(out, "\n") {
		if strings.HasPrefix(l, "recipe="+recipe+" ") {
			text = l
		}
	}
	if text == "" {
		return nil, false
	}
	r := &resultLine{text: text, fields: map[string]string{}}
	for kv := range strings.FieldsSeq(text) {
		k, v, _ := strings.Cut(kv, "=")
		r.fields[k] = v
	}
	return r, true
}

// has reports whether the line has the field k.
func (r *resultLine) has(k string) bool {
	_, ok := r.fields[k]
	return ok
}

// num reads the field k as a number.
func (r *resultLine) num(k string) float64 {
	v, err := strconv.ParseFloat(r.fields[k], 64)
	if err != nil {
		r.errs = append(r.errs, fmt.Errorf("%s=%q: %w", k, r.fields[k], err))
	}
	return v
}

// ms reads the field k as a number of milliseconds.
func (r *resultLine) ms(k string) time.Duration {
	return time.Duration(r.num(k) * float64(time.Millisecond))
}

// err joins the errors of every field read so far.
func (r *resultLine) err() error { return errors.Join(r.errs...) }
