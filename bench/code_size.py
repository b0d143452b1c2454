#!/usr/bin/env python3
# Lines of C++ in a folder at a revision, and its longest function (a definition whose opening line ends in
# "{", measured by brace matching; a heuristic, enough to follow how the actor loops and readers shrink).
# Usage: bench/code_size.py REV [REV...]   e.g. bench/code_size.py 888d7f8 HEAD
import re, subprocess, sys
def longest(rev, folder):
    files=subprocess.run(['git','ls-tree','-r','--name-only',rev,folder],capture_output=True,text=True).stdout.split()
    total=0; best=(0,'')
    for f in files:
        if not f.endswith(('.cpp','.hpp')): continue
        text=subprocess.run(['git','show',f'{rev}:{f}'],capture_output=True,text=True).stdout
        lines=text.split('\n'); total+=len(lines)-1
        i=0
        while i<len(lines):
            l=lines[i]
            # a function definition: starts at column 0 or 2 (member in class), ends with '{', has '('
            if re.match(r'^(\S.*\)|\S.*\) const|\S.*\) override|  \S.*\).*)\s*(const)?\s*(override)?\s*\{\s*$', l) and not l.lstrip().startswith(('namespace','class','struct','enum','if','for','while','switch','}')) and '(' in l:
                depth=l.count('{')-l.count('}'); j=i+1
                while depth>0 and j<len(lines):
                    depth+=lines[j].count('{')-lines[j].count('}'); j+=1
                n=j-i
                name=re.search(r'([\w:~]+)\(',l)
                if n>best[0]: best=(n,f+': '+(name.group(1) if name else l.strip()))
                i=j; continue
            i+=1
    return total,best
for rev in sys.argv[1:]:
    for folder in ['sim/scenario','sim/runtime','sim/checks','sim/plan','sim/app','sim/comm','analysis','topologies','sim/sync','datasets','models']:
        print(rev[:7],folder,*longest(rev,folder))
