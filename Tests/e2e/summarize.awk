# Reduces protocol lines to what live and offline runs must agree on: each gesture's kind (and
# name), phase, finger count, direction and tap count; `changed` lines and positions are left out
# (the kernel drops repeated values, so live frames can be fewer than the recording's).
function field(name,   m) {
    if (match($0, "\"" name "\":\"?[a-z_0-9]+")) {
        m = substr($0, RSTART, RLENGTH)
        sub(/^"[a-z_]+":"?/, "", m)
        return m
    }
    return ""
}
/"type":"gesture"/ && !/"phase":"changed"/ {
    out = field("gesture")
    n = field("name"); if (n != "") out = out "/" n
    out = out " " field("phase") " " field("fingers")
    d = field("direction"); if (d != "") out = out " " d
    c = field("count"); if (c != "") out = out " x" c
    print out
}
