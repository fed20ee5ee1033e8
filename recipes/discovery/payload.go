package discovery

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/go-zkrecipes/zkrecipes/internal/errs"
)

// Curator declares the payload with Jackson's @JsonTypeInfo(use=CLASS,
// defaultImpl=Object): a value of a Java class is written with its class
// name, as an object's first field "@class" ({"@class":"com.acme.Details",
// ...}) or, for values Jackson cannot put a field in (lists, and numbers
// other than int and double), as a two-element array ["java.lang.Long",
// 42]. Strings, booleans, ints and doubles are written bare, and null is
// null. A Java reader checks that what it read is of its payload class.

// javaClassName matches a Java binary class name ("com.acme.Outer$Inner").
var javaClassName = regexp.MustCompile(`^[\p{L}_$][\p{L}\p{N}_$]*(\.[\p{L}_$][\p{L}\p{N}_$]*)*$`)

// wrapperClassName matches what PayloadOf takes for the class of a Jackson
// wrapper array: a class name with a package, so that a plain pair such as
// ["on",1] is not taken for one.
var wrapperClassName = regexp.MustCompile(`^[\p{L}_$][\p{L}\p{N}_$]*(\.[\p{L}_$][\p{L}\p{N}_$]*)+$`)

// JavaPayload encodes v as Jackson writes a payload of the Java class
// class, so that a Java ServiceDiscovery whose payload class is class (or
// a superclass of it) reads it: an object (a struct or map) gets "@class"
// as its first field; any other value is wrapped as [class, value]. For a
// Java payload class String, Void (null), Integer or Double no class is
// written: set Payload to json.Marshal of the value.
func JavaPayload(class string, v any) (json.RawMessage, error) {
	if !javaClassName.MatchString(class) {
		return nil, errs.Invalid("java class %q: not a class name", class)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, errs.Invalid("payload: %v", err)
	}
	body := bytes.TrimSpace(buf.Bytes())
	if string(body) == "null" {
		return nil, nil
	}
	id := appendString(nil, class)
	if body[0] == '{' {
		var out []byte
		out = append(out, `{"@class":`...)
		out = append(out, id...)
		rest := bytes.TrimSpace(body[1:])
		if rest[0] != '}' {
			out = append(out, ',')
		}
		return append(out, rest...), nil
	}
	out := append([]byte{'['}, id...)
	out = append(out, ',')
	out = append(out, body...)
	return append(out, ']'), nil
}

// PayloadClass returns the Java class named in a payload (an object's
// "@class", or the first element of a Jackson wrapper array when it names
// a class with a package), or "" for a payload without one.
func PayloadClass(inst Instance) string {
	class, _ := unwrapPayload(inst.Payload)
	return class
}

// PayloadOf decodes inst's payload into a T with encoding/json, leaving out
// the Java class Jackson wrote with it (see JavaPayload): an object's
// "@class" field is ignored, and a wrapper array ["java.util.ArrayList",
// [...]] decodes its second element. A null payload leaves the zero T. An
// error is a *DataError.
func PayloadOf[T any](inst Instance) (T, error) {
	var v T
	_, raw := unwrapPayload(inst.Payload)
	if isNull(raw) {
		return v, nil
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, &DataError{Err: fmt.Errorf("payload: %w", err)}
	}
	return v, nil
}

// unwrapPayload splits a payload into the Java class it names and the value
// without it.
func unwrapPayload(raw json.RawMessage) (string, json.RawMessage) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", nil
	}
	switch raw[0] {
	case '{':
		var fields map[string]json.RawMessage
		if json.Unmarshal(raw, &fields) != nil {
			return "", raw
		}
		idRaw, ok := fields["@class"]
		if !ok {
			return "", raw
		}
		var class string
		if json.Unmarshal(idRaw, &class) != nil {
			return "", raw
		}
		delete(fields, "@class")
		rest, err := json.Marshal(fields)
		if err != nil {
			return class, raw
		}
		return class, rest
	case '[':
		var pair []json.RawMessage
		if json.Unmarshal(raw, &pair) != nil || len(pair) != 2 {
			return "", raw
		}
		var class string
		if json.Unmarshal(pair[0], &class) != nil || !wrapperClassName.MatchString(class) {
			return "", raw
		}
		return class, pair[1]
	}
	return "", raw
}
